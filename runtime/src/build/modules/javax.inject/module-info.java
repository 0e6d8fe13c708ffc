// The descriptor of javax.inject 1, a plain jar, added at package time (module-descriptors.sh).
module javax.inject {
    exports javax.inject;
}
