#!/usr/bin/env bash
# Installs the benchmark tools from Debian's packages when they are missing. Idempotent.
#   scripts/bench/ensure-tools.sh        wrk and nginx (for `make bench`)
#   scripts/bench/ensure-tools.sh wrk    only these
# Like scripts/ensure-deps.sh: apt-get, with sudo only when not root. Debian's nginx package
# starts the system nginx on port 80 when installed; a temporary policy-rc.d stops that (the
# benchmark runs its own nginx with its own config on a free port).
set -euo pipefail

tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(wrk nginx)

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }

missing=()
for tool in "${tools[@]}"; do
  have "$tool" || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  made_policy=1
fi
cleanup() { if [ "$made_policy" -eq 1 ]; then $sudo rm -f "$policy"; fi; }
trap cleanup EXIT

$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

for tool in "${missing[@]}"; do
  if ! have "$tool"; then
    echo "$tool is still missing after apt-get install" >&2
    exit 1
  fi
done
