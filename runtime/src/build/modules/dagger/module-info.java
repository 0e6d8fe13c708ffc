// The descriptor of Dagger's runtime, a plain jar, added at package time (module-descriptors.sh).
module dagger {
    requires transitive javax.inject;
    requires transitive jakarta.inject;
    requires static org.jspecify;

    exports dagger;
    exports dagger.assisted;
    exports dagger.internal;
    exports dagger.multibindings;
}
