#!/bin/sh
# Makes the distribution's class-data-sharing archive at package time: runs `egressctl list` once on
# the built-in fake with a throw-away home, where the launcher, finding no archive that fits, makes
# one in that home's cache. It moves to lib/egressctl.jsa, and its key (which names the JDK and the
# module path) to lib/egressctl.jsa.stamp: the launcher uses it only while the key is the same.
#
# Usage: cds-archive.sh DISTRIBUTION   (runtime/target/egressctl)
set -eu
distribution=$(cd "$1" && pwd -P)
archive="$distribution/lib/egressctl.jsa"
rm -f "$archive" "$archive.stamp"
home=$(mktemp -d "${TMPDIR:-/tmp}/egressctl-cds.XXXXXX")
trap 'rm -rf "$home"' EXIT
made=
if env -u EGRESSCTL_PLUGINS -u EGRESSCTL_NO_CDS_CACHE HOME="$home" XDG_CACHE_HOME="$home/cache" \
    XDG_STATE_HOME="$home/state" "$distribution/bin/egressctl" list >/dev/null 2>&1; then
  for made in "$home"/cache/egressctl/cds-*.jsa; do :; done
fi
if [ -n "$made" ] && [ -f "$made" ]; then
  mv "$made" "$archive"
  key=${made##*/cds-}
  printf '%s\n' "${key%.jsa}" >"$archive.stamp"
else
  echo "cds-archive: the JVM made no archive; egressctl starts without one" >&2
fi
