#!/usr/bin/env bash
# The one command that runs every test: first installs the system packages the tests use (on
# Debian, as root; nothing happens when all are present), then the whole Maven build with its unit,
# integration and end-to-end tests. Extra arguments go to Maven (e.g. -Dtest=... or -o).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-test-dependencies.sh
exec ./mvnw -B verify "$@"
