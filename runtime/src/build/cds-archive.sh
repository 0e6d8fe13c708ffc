#!/bin/sh
# Makes the distribution's class-data-sharing archive at package time: runs `egressctl list` once on
# the built-in fake with a throw-away home and lets the JVM dump every class it loaded from the
# module path. Later starts map those classes instead of parsing and verifying them again.
#
# Usage: cds-archive.sh DISTRIBUTION   (runtime/target/egressctl)
# The archive only fits the JDK and the folder it was made with, so next to it goes a stamp naming
# both; the launcher uses the archive only when they match (a JVM given an archive that does not
# fit ignores it silently, but a stamp spares it the check).
set -eu
distribution=$(cd "$1" && pwd -P)
archive="$distribution/lib/egressctl.jsa"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
java_path=$(readlink -f "$(command -v "$java")") || { echo "cds-archive: no java found; skipping" >&2; exit 0; }
rm -f "$archive" "$archive.stamp"
home=$(mktemp -d "${TMPDIR:-/tmp}/egressctl-cds.XXXXXX")
trap 'rm -rf "$home"' EXIT
# The JVM reports classes it cannot archive (picocli's, compiled for Java 5) on stdout; only the
# archive matters here.
if env -u EGRESSCTL_PLUGINS HOME="$home" XDG_STATE_HOME="$home/state" \
    EGRESSCTL_JAVA_OPTS="-XX:ArchiveClassesAtExit=$archive" \
    "$distribution/bin/egressctl" list >/dev/null 2>&1 && [ -f "$archive" ]; then
  printf '%s %s\n' "$java_path" "$distribution" >"$archive.stamp"
else
  rm -f "$archive"
  echo "cds-archive: the JVM made no archive; egressctl starts without one" >&2
fi
