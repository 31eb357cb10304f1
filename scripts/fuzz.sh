#!/usr/bin/env bash
# libFuzzer over every untrusted input the gateway reads (Tests/Fuzz): builds `daygate-fuzz` as a
# libFuzzer binary with AddressSanitizer in .build-fuzz (the gateway's own modules instrumented,
# the packages not), then runs each target for SECONDS from its committed seeds
# (Tests/Fuzz/corpus/<target>, the inputs that once crashed in Tests/Fuzz/regressions/<target>,
# and for the calendar the peer corpus in Tests/Fixtures/ics). Reports executions, coverage and
# corpus size per target; an input that crashes or hangs a target is copied to
# Tests/Fuzz/regressions/<target>/ (commit it: `make fuzz-replay` then checks it on every
# `make test`) and the run fails.
#
#   scripts/fuzz.sh SECONDS [TARGET...]      (default: every target)
#   scripts/fuzz.sh --smoke SECONDS          (`daygate-fuzz-smoke`: calendar and json only, whose
#                                             libFuzzer build needs no package: about a minute)
#
# FUZZ_SEED: libFuzzer's -seed (default 0: a new one each run). `make fuzz-smoke` fixes it, so
# the smoke in `make test` runs the same inputs every time (a slower machine a prefix of them)
# and cannot fail on one run and pass on the next; `make fuzz` explores.
set -euo pipefail
cd "$(dirname "$0")/.."
product=daygate-fuzz
if [ "${1:-}" = --smoke ]; then
    product=daygate-fuzz-smoke
    shift
fi
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    if [ $product = daygate-fuzz-smoke ]; then
        targets=(calendar json)
    else
        targets=(calendar config routes request-head answers json)
    fi
fi
swift=${SWIFT:-swift}

# The ordinary build's executable writes the seeds as libFuzzer takes them.
$swift build --product $product
replay="$($swift build --show-bin-path)/$product"
DAYGATE_FUZZ=1 $swift build --scratch-path .build-fuzz --product $product
fuzzer="$($swift build --scratch-path .build-fuzz --show-bin-path)/$product"

work=$(mktemp -d "${TMPDIR:-/tmp}/daygate-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
for target in "${targets[@]}"; do
    seeds="$work/$target-seeds"
    corpus="$work/$target-corpus"
    mkdir -p "$corpus" "$work/$target-crash"
    "$replay" seeds Tests/Fuzz/corpus "$target" "$seeds" >/dev/null
    extra=()
    if [ -d "Tests/Fuzz/regressions/$target" ]; then
        "$replay" seeds Tests/Fuzz/regressions "$target" "$work/$target-regressions" >/dev/null
        extra+=("$work/$target-regressions")
    fi
    [ "$target" = calendar ] && extra+=(Tests/Fixtures/ics)
    log="$work/$target.log"
    set +e
    # -timeout: one input may take at most 10 s; -rss_limit_mb: nor 2 GB (a feed or a YAML alias
    # bomb that makes the gateway hold gigabytes is a finding, not a pass).
    ASAN_OPTIONS=detect_leaks=0 DAYGATE_FUZZ_TARGET="$target" DAYGATE_ROUTES="$PWD/routes" \
        "$fuzzer" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$work/$target-crash/" "$corpus" "$seeds" "${extra[@]}" >"$log" 2>&1
    status=$?
    set -e
    stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 | sed -E 's/ +/ /g')
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    if [ $status -eq 0 ]; then
        passed=$((passed + 1))
        echo "  ok   $target: ${execs:-?} executions in ${seconds}s; $stats"
    else
        failed=$((failed + 1))
        mkdir -p "Tests/Fuzz/regressions/$target"
        for artifact in "$work/$target-crash"/*; do
            [ -f "$artifact" ] || continue
            name="$(basename "$artifact")-$(sha1sum "$artifact" | cut -c1-12)"
            # Kept as libFuzzer ran it (for answers: the reader's byte in front, which a file
            # directly in regressions/answers/ keeps).
            cp "$artifact" "Tests/Fuzz/regressions/$target/$name"
            echo "       kept Tests/Fuzz/regressions/$target/$name"
        done
        echo "  FAIL $target (exit $status):"
        grep -E 'ERROR|SUMMARY|Fatal error|fatal error|==[0-9]+==' "$log" | head -20 | sed 's/^/       /'
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
