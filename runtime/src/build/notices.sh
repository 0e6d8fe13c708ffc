#!/bin/sh
# Collects the notices of every jar the distribution bundles, at package time: the license and notice
# files each jar carries go to notices/JAR/, and notices/THIRD-PARTY.txt lists every jar with its
# Maven coordinates and the licence its pom names.
#
# Usage: notices.sh DISTRIBUTION   (runtime/target/egressctl)
set -eu
distribution=$(cd "$1" && pwd -P)
jar_tool="${JAVA_HOME:+$JAVA_HOME/bin/}jar"
notices="$distribution/notices"
rm -rf "$notices"
mkdir -p "$notices"
work=$(mktemp -d "${TMPDIR:-/tmp}/egressctl-notices.XXXXXX")
trap 'rm -rf "$work"' EXIT

{
  echo "Libraries bundled with egressctl, by folder. Each jar's own license and notice files are in"
  echo "notices/JAR/ where the jar carries them."
  echo
} >"$notices/THIRD-PARTY.txt"

for jar in "$distribution"/lib/*.jar "$distribution"/lib/conformance/*.jar "$distribution"/lib/telemetry/*.jar \
    "$distribution"/plugins/*/*.jar; do
  [ -f "$jar" ] || continue
  name=$(basename "$jar" .jar)
  folder=$(basename "$(dirname "$jar")")
  rm -rf "$work/x" && mkdir "$work/x"
  members=$("$jar_tool" tf "$jar" | grep -E '^(META-INF/)?([A-Za-z0-9_.-]*/)?(LICEN[CS]E|NOTICE|COPYING)[^/]*$' \
    | grep -v '/$' || true)
  if [ -n "$members" ]; then
    # shellcheck disable=SC2086 # one member name per word; none holds a space
    (cd "$work/x" && "$jar_tool" xf "$jar" $members)
    mkdir -p "$notices/$name"
    find "$work/x" -type f -exec cp {} "$notices/$name/" \;
  fi
  coordinates=
  licence=
  properties=$("$jar_tool" tf "$jar" | grep -E '^META-INF/maven/[^/]+/[^/]+/pom\.(properties|xml)$' || true)
  if [ -n "$properties" ]; then
    # shellcheck disable=SC2086
    (cd "$work/x" && "$jar_tool" xf "$jar" $properties)
    props=$(find "$work/x/META-INF/maven" -name pom.properties | head -n 1)
    if [ -n "$props" ]; then
      coordinates="$(sed -n 's/^groupId=//p' "$props"):$(sed -n 's/^artifactId=//p' "$props"):$(sed -n 's/^version=//p' "$props")"
    fi
    pom=$(find "$work/x/META-INF/maven" -name pom.xml | head -n 1)
    if [ -n "$pom" ]; then
      licence=$(tr -d '\n' <"$pom" | sed -n 's:.*<licenses>[[:space:]]*<license>[[:space:]]*<name>\([^<]*\)</name>.*:\1:p')
    fi
  fi
  printf '%-10s %-55s %-70s %s\n' "$folder/" "$name.jar" "${coordinates:-(no Maven metadata)}" \
    "${licence:-(licence named by its parent project; see notices/$name/ if present)}" >>"$notices/THIRD-PARTY.txt"
done
