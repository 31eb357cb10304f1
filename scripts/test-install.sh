#!/usr/bin/env bash
# `make test-install`: installs the debug build into a temporary DESTDIR and runs
# Tests/Service/install_test.py against it (the layout, the installed binary serving, SIGHUP,
# the unit, the Containerfile). The temporary folder is removed whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
destdir="$(mktemp -d "${TMPDIR:-/tmp}/daygate-install.XXXXXX")"
trap 'rm -rf "$destdir"' EXIT
make --no-print-directory install-files SWIFT="$SWIFT" CONFIG=debug PREFIX=/usr/local DESTDIR="$destdir" >/dev/null
python3 Tests/Service/install_test.py --destdir "$destdir" --prefix /usr/local --repo "$PWD"
