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
# workers. FUZZMINIMIZETIME (default 100x: a hundred executions) bounds the
# minimization of each new input. go test's default, 60s per input that
# adds coverage, is where a fresh clone's time went (issue 15: Temporal
# made 17 executions in 4 minutes, OTel thousands a second): its seeds are
# real histories of up to 25 KB, every early mutation of them adds
# coverage, and each was minimized for a minute at ~40 ms an execution
# under coverage instrumentation. A time bound (1s) still spends most of a
# short run minimizing (Temporal: 4 executions/s); a count does not
# (≈1,000/s). A crasher is written by go test to <package>/testdata/fuzz/<target>/;
# commit it with the fix: it becomes a regression seed. A summary of each
# run's duration, executions and executions per second is appended to
# FUZZLOG (default fuzz-results.txt, not committed).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-10m}
parallel=${FUZZPARALLEL:-1}
minimize=${FUZZMINIMIZETIME:-100x}
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
		if grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written to' "$out"; then
			# go test -fuzz sometimes reports the end of -fuzztime itself,
			# caught while it minimizes a new input, as a failure: no
			# input failed (none is written), so it is no finding. CI saw
			# it once in FuzzReadInspectArchive after 2 s.
			result="(go's deadline at the end of -fuzztime, no failing input) ok"
		else
			result=FAIL
			status=1
		fi
	fi
	# per second of fuzzing (go test's last "elapsed: Ns"), not of building
	fuzzed=$(grep -o 'elapsed: [0-9]*s' "$out" | tail -n 1 | tr -dc '0-9' || true)
	rate=$(awk -v e="${execs:-0}" -v s="${fuzzed:-0}" 'BEGIN { printf "%d", (s > 0) ? e / s : 0 }')
	printf '%s %s %ss %s execs %s/s %s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "${execs:-?}" "$rate" "$result" | tee -a "$log"
	rm -f "$out"
done
exit $status
