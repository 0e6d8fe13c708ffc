#!/bin/sh
# Removes the JAR signatures of BouncyCastle's provider in the distribution's kvm plugin: reading
# the module descriptor of a signed jar makes the JDK verify the signature (about 110 classes of
# sun.security and 0.2 s of CPU) in every command that discovers the plugins, SSH or not. Only
# Ed25519's Signature and KeyFactory are taken from it (Ed25519Registrar), which no JDK restricts to
# signed providers. The main manifest section is kept (Multi-Release, Automatic-Module-Name).
#
# Usage: unsigned-jars.sh DISTRIBUTION
set -eu
plugin=$(cd "$1/plugins/kvm" && pwd -P)
tools="${JAVA_HOME:+$JAVA_HOME/bin/}"
for signed in "$plugin"/bcprov-*.jar; do
  [ -f "$signed" ] || { echo "unsigned-jars: no bcprov jar in $plugin" >&2; exit 1; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/egressctl-unsign.XXXXXX")
  (cd "$work" && "${tools}jar" --extract --file "$signed")
  rm -f "$work"/META-INF/*.SF "$work"/META-INF/*.RSA "$work"/META-INF/*.DSA "$work"/META-INF/*.EC
  # The main section ends at the first empty line; the per-entry digests after it only served the signature.
  sed '/^\r*$/q' "$work/META-INF/MANIFEST.MF" >"$work.manifest"
  rm "$work/META-INF/MANIFEST.MF"
  "${tools}jar" --create --file "$signed.part" --manifest "$work.manifest" -C "$work" .
  mv -f "$signed.part" "$signed"
  rm -rf "$work" "$work.manifest"
done
