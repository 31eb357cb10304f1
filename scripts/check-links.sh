#!/usr/bin/env bash
# `make lint-links` (part of `make lint`): no file of the project may point outside the
# repository — to the workspace's shared folder, its product text or its backend notes. What
# the code depends on is written down in docs/. Checks tracked files and new ones not ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
self="scripts/check-links.sh"
pattern='\.\./shared|shared/product|product\.md|contracts/'
found=$(git ls-files -z --cached --others --exclude-standard \
    | grep -zv -e "^${self}\$" \
    | xargs -0 -r grep -nIE "$pattern" -- 2>/dev/null || true)
if [ -n "$found" ]; then
    echo "files point outside the repository (describe it in docs/ instead):" >&2
    echo "$found" >&2
    exit 1
fi
echo "lint-links: no file points outside the repository"
