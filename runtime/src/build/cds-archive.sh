#!/bin/sh
# Makes the distribution's class-data-sharing archive at package time. Its class list, kept in
# lib/cds-classes.txt for the launcher to make archives elsewhere, joins two lists: the classes a
# `list` on the built-in fake loads now (recorded here, with a throw-away home), and those a first
# contact with a hypervisor loads (src/build/cds-classes.txt, recorded on the test stack by
# scripts/cds-class-list.sh; a package build has no host to talk to). CdsClassList.java writes it
# in the JVM's format, with the plugin layers' classes. The launcher, finding no
# archive that fits, makes one from that list in the throw-away cache, with a stamp naming this JDK
# and module path; they move to lib/egressctl.jsa and lib/egressctl.stamp.
#
# Usage: cds-archive.sh DISTRIBUTION RECORDED-CLASS-LIST
set -eu
distribution=$(cd "$1" && pwd -P)
recorded=$2
archive="$distribution/lib/egressctl.jsa"
stamp="$distribution/lib/egressctl.stamp"
classes="$distribution/lib/cds-classes.txt"
rm -f "$archive" "$stamp" "$classes"
home=$(mktemp -d "${TMPDIR:-/tmp}/egressctl-cds.XXXXXX")
trap 'rm -rf "$home"' EXIT
launch() {
  env -u EGRESSCTL_PLUGINS HOME="$home" XDG_CACHE_HOME="$home/cache" XDG_STATE_HOME="$home/state" "$@"
}

launch EGRESSCTL_NO_CDS_CACHE=1 \
  EGRESSCTL_JAVA_OPTS="-XX:DumpLoadedClassList=$home/fake.txt -Xlog:class+load=info:file=$home/fake-loaded.txt" \
  "$distribution/bin/egressctl" list >/dev/null 2>&1 || true
# The plugin layers' classes are archived too: the tool reads their supertypes from the jars.
java_tool="${JAVA_HOME:+$JAVA_HOME/bin/}java"
"$java_tool" "$(dirname "$0")/CdsClassList.java" "$distribution" "$classes" "$home/fake.txt" \
  "$home/fake-loaded.txt" "$recorded" || rm -f "$classes"
if [ ! -s "$classes" ]; then
  rm -f "$classes"
  echo "cds-archive: no class list; egressctl starts without a class-data-sharing archive" >&2
  exit 0
fi

launch env -u EGRESSCTL_NO_CDS_CACHE "$distribution/bin/egressctl" --version >/dev/null 2>&1 || true
waited=0
made=
while [ "$waited" -lt 120 ]; do
  # The stamp is written last.
  for made in "$home"/cache/egressctl/cds-*.stamp; do :; done
  [ -f "$made" ] && break
  sleep 1
  waited=$((waited + 1))
done
if [ -f "$made" ]; then
  mv "${made%.stamp}.jsa" "$archive"
  # The stamp keeps the time the archive was made: a JDK updated after it is newer.
  mv "$made" "$stamp"
else
  echo "cds-archive: the JVM made no archive in ${waited} s; egressctl starts without one" >&2
fi
