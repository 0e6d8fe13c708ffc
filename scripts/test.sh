#!/usr/bin/env bash
# The one command that runs every test: first installs the system packages the tests use (on
# Debian, as root; nothing happens when all are present), then the whole Maven build with its unit,
# integration and end-to-end tests, then the example plugin's own build and conformance run. Extra
# arguments go to the main Maven build (e.g. -Dtest=... or -o; -o also to the example's).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-test-dependencies.sh
# install, not verify: the example plugin (examples/plugin, a project of its own) builds against
# the installed provider-api and conformance suite, and runs the suite, as a plugin author would.
./mvnw -B install "$@"
offline=()
for argument in "$@"; do
  case $argument in -o | --offline) offline=(-o) ;; esac
done
exec ./mvnw -B "${offline[@]}" -f examples/plugin/pom.xml verify
