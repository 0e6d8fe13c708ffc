#!/bin/sh
# Gives the distribution's plain jars in lib/ that the platform alone uses (Dagger's runtime and
# javax.inject) a module descriptor (src/build/modules/NAME/module-info.java). In the boot layer
# they would be automatic modules, and a module that reads any automatic module of a layer reads
# them all: every plugin reads the OpenTelemetry API, automatic too, so it would read these as
# well, and a plugin could not bundle its own Dagger or a package of theirs (docs/plugins.md).
#
# Usage: module-descriptors.sh DISTRIBUTION SOURCES
set -eu
lib=$(cd "$1/lib" && pwd -P)
sources=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/egressctl-modules.XXXXXX")
trap 'rm -rf "$work"' EXIT
tools="${JAVA_HOME:+$JAVA_HOME/bin/}"
jar_of() {
  for found in "$lib"/$1-[0-9]*.jar; do
    [ -f "$found" ] || { echo "module-descriptors: no $1 jar in $lib" >&2; exit 1; }
    printf '%s' "$found"
    return
  done
}
javax_inject=$(jar_of javax.inject)
dagger=$(jar_of dagger)
jakarta_inject=$(jar_of jakarta.inject-api)
jspecify=$(jar_of jspecify)
# In order: Dagger's descriptor names javax.inject, which must be a module of its own by then.
"${tools}javac" --release 17 -d "$work/javax.inject" --patch-module "javax.inject=$javax_inject" \
  "$sources/javax.inject/module-info.java"
"${tools}jar" --update --file "$javax_inject" -C "$work/javax.inject" module-info.class
mkdir "$work/path"
cp "$javax_inject" "$jakarta_inject" "$jspecify" "$work/path/"
"${tools}javac" --release 17 -d "$work/dagger" --module-path "$work/path" --patch-module "dagger=$dagger" \
  "$sources/dagger/module-info.java"
"${tools}jar" --update --file "$dagger" -C "$work/dagger" module-info.class
