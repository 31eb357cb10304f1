#!/usr/bin/env bash
# Installs what daygate needs from Debian's packages when it is missing. Idempotent.
#   scripts/ensure-deps.sh            build needs (libsqlite3-dev)
#   scripts/ensure-deps.sh chromium   plus these tools (browser test; node for the wall's layout
#                                     tests; prlimit for the flood test; wrk, nginx for benchmarks)
set -euo pipefail

if ! command -v swift >/dev/null 2>&1; then
  echo "swift is not on PATH: install Swift 6 (https://www.swift.org/install/) and try again" >&2
  exit 1
fi

missing=()
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
for tool in "$@"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    case "$tool" in
      chromium) missing+=(chromium fonts-dejavu-core) ;;
      prlimit) missing+=(util-linux) ;;
      node) missing+=(nodejs) ;;
      *) missing+=("$tool") ;;
    esac
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
