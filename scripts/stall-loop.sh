#!/usr/bin/env bash
# Runs one Swift test by itself, again and again, with CPU load beside it, and counts the runs
# that never end (a stall: a task that never resumes). How the simulators' stop() stall was
# found and its fix shown (docs/design.md): 0 of 200 after it, 8 of 60 before.
#
#   scripts/stall-loop.sh [RUNS] [FILTER]      # defaults: 200, the hostile-feed gateway test
#   STALL_LOAD=0 scripts/stall-loop.sh         # without the two busy loops beside it
#
# Each run may take STALL_TIMEOUT seconds (60) before it counts as stalled; the output of a
# stalled or failed run is kept in a temporary folder, whose name is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
filter=${2:-healthzIsAnsweredWhileAHostileFeedIsExpanded}
timeout_s=${STALL_TIMEOUT:-60}
swift build --build-tests >/dev/null
binary="$(swift build --show-bin-path)/daygatePackageTests.xctest"
logs=$(mktemp -d /tmp/stall-loop.XXXXXX)
load=()
if [ "${STALL_LOAD:-1}" != 0 ]; then
    for _ in 1 2; do
        timeout $((runs * timeout_s)) sh -c 'while :; do :; done' &
        load+=($!)
    done
fi
trap 'kill "${load[@]}" 2>/dev/null || true' EXIT
stalls=0
fails=0
for i in $(seq 1 "$runs"); do
    status=0
    timeout "$timeout_s" "$binary" --testing-library swift-testing --filter "$filter" >"$logs/run.$i" 2>&1 || status=$?
    if [ "$status" -eq 124 ]; then
        stalls=$((stalls + 1))
        echo "run $i: stalled (log $logs/run.$i)"
    elif [ "$status" -ne 0 ]; then
        fails=$((fails + 1))
        echo "run $i: failed (log $logs/run.$i)"
    else
        rm -f "$logs/run.$i"
    fi
done
echo "stall-loop: $runs runs of $filter, $stalls stalled, $fails failed (logs in $logs)"
[ "$stalls" -eq 0 ] && [ "$fails" -eq 0 ]
