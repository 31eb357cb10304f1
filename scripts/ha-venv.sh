#!/usr/bin/env bash
# Makes the Home Assistant test environment (make test-ha): a Python 3.13 virtual environment
# at $1 with the requirements of $2, unless it is there already and newer than them. Holds a
# lock ($1.lock), so that the copy `make test` starts in the background while Swift builds and
# the one `make test-ha` asks for never make it at the same time: the second finds it made.
set -euo pipefail
venv="$1"
requirements="$2"
exec 9>"$venv.lock"
flock 9
if [ -f "$venv/.installed" ] && [ "$venv/.installed" -nt "$requirements" ]; then
  exit 0
fi
rm -rf "$venv"
PYENV_VERSION=3.13.0 python3.13 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
touch "$venv/.installed"
