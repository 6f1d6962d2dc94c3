#!/usr/bin/env bash
# Run every fuzz target (or the ones named) for a while each, one after the
# other. `go test ./...` already runs each target's seeds (testdata/, the
# ../shared corpus when present, and the crashers kept in testdata/fuzz/);
# this script searches for new inputs.
#
#   scripts/fuzz.sh                      every target, FUZZTIME (default 10m) each
#   FUZZTIME=30s scripts/fuzz.sh         a quick pass
#   scripts/fuzz.sh FuzzReadNative FuzzKey
#
# FUZZPARALLEL (default 1) is go test's -parallel: the number of fuzzing
# workers. FUZZMINIMIZETIME (default 1s) bounds the minimization of each
# new input: go test's default (60s per input that adds coverage) spends
# most of a short run minimizing, not fuzzing. A crasher is written by go test to <package>/testdata/fuzz/<target>/;
# commit it with the fix: it becomes a regression seed. A summary of each
# run's duration and executions is appended to FUZZLOG (default
# fuzz-results.txt, not committed).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-10m}
parallel=${FUZZPARALLEL:-1}
minimize=${FUZZMINIMIZETIME:-1s}
log=${FUZZLOG:-fuzz-results.txt}

# target → package, read from the code: every func FuzzX in a _test.go
# file is a target of the package of its folder, so none can be forgotten
# (a hand-kept table went stale and made every run exit 2).
declare -A pkg=()
order=()
while IFS=: read -r file fn; do
	name=${fn#func }
	name=${name%%(*}
	pkg[$name]=./$(dirname "$file")
	order+=("$name")
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9]*(' . | sed 's|^\./||' | sort)
[ ${#order[@]} -gt 0 ] || { echo "no fuzz targets found"; exit 2; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=("${order[@]}")
fi

status=0
for t in "${targets[@]}"; do
	p=${pkg[$t]:-}
	[ -n "$p" ] || { echo "unknown target $t (known: ${order[*]})"; exit 2; }
	echo "== $t ($p) for $fuzztime, -parallel $parallel"
	out=$(mktemp)
	start=$(date +%s)
	set +e
	go test "$p" -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel "$parallel" 2>&1 | tee "$out"
	code=${PIPESTATUS[0]}
	set -e
	secs=$(( $(date +%s) - start ))
	execs=$(grep -o 'execs: [0-9]*' "$out" | tail -n 1 | awk '{print $2}' || true)
	result=ok
	if [ "$code" -ne 0 ]; then
		result=FAIL
		status=1
	fi
	printf '%s %s %ss %s execs %s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "${execs:-?}" "$result" | tee -a "$log"
	rm -f "$out"
done
exit $status
