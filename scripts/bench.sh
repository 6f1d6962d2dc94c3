#!/usr/bin/env bash
# Speed and scale benchmarks (issue 6): generates the corpora, runs each
# comparison with GNU time (/usr/bin/time -v; Debian's `time` is installed
# when missing and this runs as root), and prints a table of medians. Every
# ratio compares runs made one right after the other, so that load from
# other processes hits both sides alike. Not part of `go test`.
#
#   scripts/bench.sh                     everything (about half an hour on 2 cores)
#   RUNS=5 scripts/bench.sh              more runs per median (default 3; check: 4×RUNS)
#   ONLY="speed memory" scripts/bench.sh  some of: speed memory policy check opa series
#   SHAPES="families messy" ONLY=series scripts/bench.sh   the scaling series of some shapes
#   OPA_BIG=1 scripts/bench.sh           opa eval on the 1 GB corpus too (5 GB of RAM)
#
# Corpora (internal/corpus, written under $WORK and deleted at the end):
#   big      BIG_TASKS × BIG_EVENTS native events, tool outputs of 2 KiB on
#            average: about 1 GB (default 12,000 tasks, 600,000 events)
#   big2     the same events with outputs of 4 KiB: about 2 GB
#   history  HIST_TASKS × HIST_EVENTS (default 1,000 tasks, 50,000 events;
#            the check and opa comparisons)
#   history-short  the same with texts of 256 bytes (check)
#   series-SHAPE-N  each shape of internal/corpus.Shapes (SHAPES, default
#            friendly families hot-destinations messy) at 4 sizes 2× apart:
#            SERIES_TASKS (default 1000) × 1, 2, 4, 8 tasks of
#            SERIES_EVENTS_PER_TASK (50) events, texts of SERIES_OUTPUT_BYTES
#            (1100): about 50, 100, 200 and 410 MB. Each size's analyze
#            --format json is measured back to back with the next, and each
#            shape prints its growth ratios (time, peak RSS) and, at the
#            largest size, analyze's speed against the bare gjson scan, so a
#            term that grows faster than the input cannot hide (issue 15).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=${WORK:-/tmp/effectlint-bench}
RUNS=${RUNS:-3}
ONLY=${ONLY:-speed memory policy check opa series}
SHAPES=${SHAPES:-friendly families hot-destinations messy}
SERIES_TASKS=${SERIES_TASKS:-1000}
SERIES_EVENTS_PER_TASK=${SERIES_EVENTS_PER_TASK:-50}
SERIES_OUTPUT_BYTES=${SERIES_OUTPUT_BYTES:-1100}
BIG_TASKS=${BIG_TASKS:-12000}
BIG_EVENTS=${BIG_EVENTS:-600000}
FACTS=${FACTS:-10000,20000,100000,200000,500000,1000000}
HIST_TASKS=${HIST_TASKS:-1000}
HIST_EVENTS=${HIST_EVENTS:-50000}
OPA_VERSION=$(awk '$1 == "github.com/open-policy-agent/opa" {print $2}' go.mod)

want() { [[ " $ONLY " == *" $1 "* ]]; }

if [ ! -x /usr/bin/time ] || ! /usr/bin/time -v true >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "GNU time is missing and this is not root: apt-get install time"; exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq && apt-get install -y -qq time; } >/dev/null
fi

mkdir -p "$WORK/bin" "$WORK/out"
trap 'rm -rf "$WORK"/corpus-* "$WORK"/*.json' EXIT
echo "== building into $WORK/bin"
go build -o "$WORK/bin/effectlint" .
go build -o "$WORK/bin/corpusgen" ./internal/corpusgen
go build -o "$WORK/bin/benchtool" ./internal/bench/benchtool
BIN="$WORK/bin"

df -h "$WORK" | tail -1 | awk '{print "== disk: " $4 " free on " $6}'

# measure NAME CMD... : runs CMD under /usr/bin/time -v (stdout to
# $WORK/out/NAME.out) and appends "wall_s cpu_s maxrss_kb exit" to
# $WORK/out/NAME.runs.
measure() {
	local name=$1; shift
	local t="$WORK/out/$name.time"
	set +e
	/usr/bin/time -v "$@" > "$WORK/out/$name.out" 2> "$t"
	local code=$?
	set -e
	awk -v code="$code" '
		/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = (n == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
		/User time/ { u = $NF } /System time/ { s = $NF } /Maximum resident/ { m = $NF }
		END { printf "%.3f %.3f %d %d\n", w, u + s, m, code }' "$t" >> "$WORK/out/$name.runs"
}

# median FILE COLUMN
median() { awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# ratios A B COL: the median of A[i]/B[i] over paired runs
ratio() { paste "$1" "$2" | awk -v c="$3" -v n="$(head -1 "$1" | wc -w)" '{print $c / $(c + n)}' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

corpus() { # NAME TASKS EVENTS OUTPUT_BYTES
	local dir="$WORK/corpus-$1"
	if [ ! -d "$dir" ]; then
		"$BIN/corpusgen" -tasks "$2" -events "$3" -output-bytes "$4" -out "$dir" | head -1 >&2
	fi
	echo "$dir"
}

ROWS=()
SERIES=()
row() { ROWS+=("$(printf '| %s | %s | %s | %s |' "$1" "$2" "$3" "$4")"); }
verdict() { awk -v x="$1" -v op="$2" -v y="$3" 'BEGIN { ok = (op == "<=") ? x <= y : x >= y; print ok ? "met" : "NOT met" }'; }

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | awk '{print $3}'), load $(cut -d' ' -f1-3 /proc/loadavg)"

if want speed || want memory; then
	BIG=$(corpus big "$BIG_TASKS" "$BIG_EVENTS" 2048)
fi

if want speed; then
	echo "== speed: analyze vs the bare gjson scan on $(du -sh "$BIG" | cut -f1) ($RUNS runs, alternating)"
	cat "$BIG"/*/*.jsonl > /dev/null # page cache
	for i in $(seq "$RUNS"); do
		measure scan "$BIN/benchtool" scan "$BIG"
		measure analyze-text "$BIN/effectlint" analyze "$BIG"
		measure scan2 "$BIN/benchtool" scan "$BIG"
		measure analyze-json "$BIN/effectlint" analyze --format json "$BIG"
	done
	for f in text json; do
		r=$(ratio "$WORK/out/$( [ $f = text ] && echo scan || echo scan2).runs" "$WORK/out/analyze-$f.runs" 1)
		row "analyze ($f) speed vs bare gjson scan, 1 GB native" "≥ 0.50" \
			"$(printf '%.2f (analyze %.1f s, scan %.1f s wall; cpu %.1f s vs %.1f s)' "$r" \
				"$(median "$WORK/out/analyze-$f.runs" 1)" "$(median "$WORK/out/$( [ $f = text ] && echo scan || echo scan2).runs" 1)" \
				"$(median "$WORK/out/analyze-$f.runs" 2)" "$(median "$WORK/out/$( [ $f = text ] && echo scan || echo scan2).runs" 2)")" \
			"$(verdict "$r" ">=" 0.5)"
	done
fi

if want memory; then
	BIG2=$(corpus big2 "$BIG_TASKS" "$BIG_EVENTS" 4096)
	echo "== memory: the same events, twice the bytes ($(du -sh "$BIG" | cut -f1) vs $(du -sh "$BIG2" | cut -f1))"
	for i in $(seq "$RUNS"); do
		measure mem1 "$BIN/effectlint" analyze --format json "$BIG"
		measure mem2 "$BIN/effectlint" analyze --format json "$BIG2"
	done
	m1=$(median "$WORK/out/mem1.runs" 3); m2=$(median "$WORK/out/mem2.runs" 3)
	r=$(awk -v a="$m2" -v b="$m1" 'BEGIN { printf "%.3f", a / b }')
	row "peak RSS, 2× bytes at fixed events" "≤ 1.20×" "$(printf '%.2f× (%d MB → %d MB)' "$r" $((m1 / 1024)) $((m2 / 1024)))" "$(verdict "$r" "<=" 1.2)"
	row "peak RSS, 2 GB of native logs" "< 512 MB" "$((m2 / 1024)) MB" "$(verdict "$((m2 / 1024))" "<=" 511)"
fi
rm -rf "$WORK/corpus-big" "$WORK/corpus-big2"

if want policy; then
	# Two more runs than elsewhere: one slow run of 10^6 facts (a collection
	# at a bad moment) moves a median of three.
	echo "== policy: evaluation time by facts ($FACTS; go test -bench, $((RUNS + 2)) runs)"
	EFFECTLINT_BENCH_FACTS=$FACTS go test -run '^$' -bench 'BenchmarkEvaluate$' -benchtime 1x -count "$((RUNS + 2))" ./policy \
		| tee "$WORK/out/policy.txt" | grep '^Benchmark' || true
	# facts wall_ns cpu_ns, by unit
	awk '/^BenchmarkEvaluate\/facts=/ { for (i = 3; i < NF; i++) { if ($(i+1) == "ns/op") w = $i; if ($(i+1) == "cpu-ns/op") c = $i; if ($(i+1) == "facts") f = $i }
		split($1, a, "[=-]"); print a[2], f, w, c }' "$WORK/out/policy.txt" > "$WORK/out/policy.runs"
	med() { awk -v n="$1" -v c="$2" '$1 == n {print $c}' "$WORK/out/policy.runs" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
	for n in $(awk '{print $1}' "$WORK/out/policy.runs" | sort -n | uniq); do
		d=$((n * 2)); grep -q "^$d " "$WORK/out/policy.runs" || continue
		fn=$(med "$n" 2); fd=$(med "$d" 2)
		# time ratios scaled to exactly twice the facts
		rc=$(awk -v a="$(med "$d" 4)" -v b="$(med "$n" 4)" -v fa="$fd" -v fb="$fn" 'BEGIN { printf "%.2f", a / b * 2 * fb / fa }')
		rw=$(awk -v a="$(med "$d" 3)" -v b="$(med "$n" 3)" -v fa="$fd" -v fb="$fn" 'BEGIN { printf "%.2f", a / b * 2 * fb / fa }')
		row "evaluation, 2× facts ($fn → $fd facts)" "≤ 2.2×" \
			"$(printf 'cpu %s× (%.2f s → %.2f s); wall %s× (%.2f s → %.2f s)' "$rc" \
				"$(awk -v x="$(med "$n" 4)" 'BEGIN{print x/1e9}')" "$(awk -v x="$(med "$d" 4)" 'BEGIN{print x/1e9}')" "$rw" \
				"$(awk -v x="$(med "$n" 3)" 'BEGIN{print x/1e9}')" "$(awk -v x="$(med "$d" 3)" 'BEGIN{print x/1e9}')")" \
			"$(verdict "$rc" "<=" 2.2) (cpu)"
	done
fi

if want check || want opa; then
	HIST=$(corpus history "$HIST_TASKS" "$HIST_EVENTS" 2048)
fi

if want check; then
	runs=$((RUNS * 4 + 1))
	# --no-cache: each run reads cold (docs/cache.md measures the warm cache).
	echo "== check: $HIST_TASKS tasks, $HIST_EVENTS events ($(du -sh "$HIST" | cut -f1)), $runs runs"
	for i in $(seq "$runs"); do
		measure check "$BIN/effectlint" check --no-cache --task w0000500 --checkpoint send "$HIST"
	done
	w=$(median "$WORK/out/check.runs" 1)
	row "check, whole process, $HIST_TASKS tasks / $HIST_EVENTS events" "< 100 ms" \
		"$(printf '%.0f ms (cpu %.0f ms, %d MB)' "$(awk -v x="$w" 'BEGIN{print x*1000}')" "$(awk -v x="$(median "$WORK/out/check.runs" 2)" 'BEGIN{print x*1000}')" $(( $(median "$WORK/out/check.runs" 3) / 1024 )))" \
		"$(verdict "$(awk -v x="$w" 'BEGIN{print x*1000}')" "<=" 99.999)"
	# The same events with short texts: is it the bytes or the events?
	SHORT=$(corpus history-short "$HIST_TASKS" "$HIST_EVENTS" 256)
	for i in $(seq "$runs"); do
		measure check-short "$BIN/effectlint" check --no-cache --task w0000500 --checkpoint send "$SHORT"
	done
	w=$(median "$WORK/out/check-short.runs" 1)
	row "check, the same $HIST_EVENTS events with 256-byte texts ($(du -sh "$SHORT" | cut -f1))" "< 100 ms" \
		"$(printf '%.0f ms (cpu %.0f ms, %d MB)' "$(awk -v x="$w" 'BEGIN{print x*1000}')" "$(awk -v x="$(median "$WORK/out/check-short.runs" 2)" 'BEGIN{print x*1000}')" $(( $(median "$WORK/out/check-short.runs" 3) / 1024 )))" \
		"$(verdict "$(awk -v x="$w" 'BEGIN{print x*1000}')" "<=" 99.999)"
	rm -rf "$SHORT"
fi

if want opa; then
	OPA=$(command -v opa || echo "$(go env GOPATH)/bin/opa")
	if [ ! -x "$OPA" ]; then
		echo "== installing opa $OPA_VERSION (go install)"
		go install "github.com/open-policy-agent/opa@$OPA_VERSION"
	fi
	echo "== opa eval ($("$OPA" version | head -1)) vs analyze on the raw events of the same corpus"
	"$BIN/benchtool" array "$HIST" "$WORK/events.json"
	# keystates.rego groups events by task first (OPA indexes that
	# comprehension); keystates-naive.rego scans every event for each key.
	for policy in keystates keystates-naive; do
		pkg=${policy//-/_}
		for i in $(seq "$RUNS"); do
			measure "opa-$policy" "$OPA" eval --format json -d "scripts/opa/$policy.rego" -i "$WORK/events.json" "data.$pkg.states"
			measure "analyze-$policy" "$BIN/effectlint" analyze --format json "$HIST"
		done
		echo "   $policy: $("$BIN/benchtool" agree "$WORK/out/opa-$policy.out" "$WORK/out/analyze-$policy.out" | tail -1)"
		rt=$(ratio "$WORK/out/opa-$policy.runs" "$WORK/out/analyze-$policy.runs" 1)
		rm_=$(ratio "$WORK/out/analyze-$policy.runs" "$WORK/out/opa-$policy.runs" 3)
		row "analyze vs opa eval ($policy.rego), time" "≥ 20× faster" \
			"$(printf '%.1f× (opa %.1f s, analyze %.2f s wall; cpu %.1f s vs %.2f s)' "$rt" "$(median "$WORK/out/opa-$policy.runs" 1)" "$(median "$WORK/out/analyze-$policy.runs" 1)" \
				"$(median "$WORK/out/opa-$policy.runs" 2)" "$(median "$WORK/out/analyze-$policy.runs" 2)")" "$(verdict "$rt" ">=" 20)"
		row "analyze vs opa eval ($policy.rego), peak RSS" "≤ 1/10" \
			"$(printf '1/%.1f (opa %d MB, analyze %d MB)' "$(awk -v x="$rm_" 'BEGIN{print 1/x}')" $(( $(median "$WORK/out/opa-$policy.runs" 3) / 1024 )) $(( $(median "$WORK/out/analyze-$policy.runs" 3) / 1024 )))" \
			"$(verdict "$rm_" "<=" 0.1)"
	done
	if [ -n "${OPA_BIG:-}" ]; then
		BIG=$(corpus big "$BIG_TASKS" "$BIG_EVENTS" 2048)
		"$BIN/benchtool" array "$BIG" "$WORK/events-big.json"
		rm -rf "$WORK/corpus-big-opa"
		for i in $(seq "$RUNS"); do
			measure opa-big "$OPA" eval --format json -d scripts/opa/keystates.rego -i "$WORK/events-big.json" data.keystates.states
			measure analyze-big "$BIN/effectlint" analyze --format json "$BIG"
		done
		rt=$(ratio "$WORK/out/opa-big.runs" "$WORK/out/analyze-big.runs" 1)
		rm_=$(ratio "$WORK/out/analyze-big.runs" "$WORK/out/opa-big.runs" 3)
		row "analyze vs opa eval (keystates.rego), 1 GB, time" "≥ 20× faster" \
			"$(printf '%.1f× (opa %.1f s, analyze %.1f s)' "$rt" "$(median "$WORK/out/opa-big.runs" 1)" "$(median "$WORK/out/analyze-big.runs" 1)")" "$(verdict "$rt" ">=" 20)"
		row "analyze vs opa eval (keystates.rego), 1 GB, peak RSS" "≤ 1/10" \
			"$(printf '1/%.1f (opa %d MB, analyze %d MB)' "$(awk -v x="$rm_" 'BEGIN{print 1/x}')" $(( $(median "$WORK/out/opa-big.runs" 3) / 1024 )) $(( $(median "$WORK/out/analyze-big.runs" 3) / 1024 )))" \
			"$(verdict "$rm_" "<=" 0.1)"
		rm -rf "$WORK/corpus-big"
	fi
fi

if want series; then
	for shape in $SHAPES; do
		sizes=()
		for m in 1 2 4 8; do sizes+=($((SERIES_TASKS * m))); done
		dirs=()
		for n in "${sizes[@]}"; do
			dir="$WORK/corpus-series-$shape-$n"
			if [ ! -d "$dir" ]; then
				"$BIN/corpusgen" -shape "$shape" -tasks "$n" -events $((n * SERIES_EVENTS_PER_TASK)) \
					-output-bytes "$SERIES_OUTPUT_BYTES" -out "$dir" > "$WORK/out/corpusgen.txt"
				head -1 "$WORK/out/corpusgen.txt" >&2
			fi
			dirs+=("$dir")
		done
		echo "== series $shape: ${sizes[*]} tasks ($(for d in "${dirs[@]}"; do du -sm "$d" | cut -f1; done | tr '\n' ' ')MB), $RUNS runs, load $(cut -d' ' -f1-3 /proc/loadavg)"
		find "${dirs[@]}" -type f -exec cat {} + > /dev/null # page cache
		for i in $(seq "$RUNS"); do
			for j in "${!sizes[@]}"; do
				measure "series-$shape-$j" "$BIN/effectlint" analyze --format json "${dirs[$j]}"
			done
			measure "series-$shape-scan" "$BIN/benchtool" scan "${dirs[3]}"
		done
		SERIES+=("| $shape | | | | | | |")
		for j in "${!sizes[@]}"; do
			f="$WORK/out/series-$shape-$j.runs"
			growth="—"
			if [ "$j" -gt 0 ]; then
				p="$WORK/out/series-$shape-$((j - 1)).runs"
				rw=$(ratio "$f" "$p" 1); rc=$(ratio "$f" "$p" 2); rm_=$(ratio "$f" "$p" 3)
				growth=$(printf 'wall %.2f×, cpu %.2f×, RSS %.2f× (%s)' "$rw" "$rc" "$rm_" \
					"$( [ "$(verdict "$rc" "<=" 2.2)" = met ] && [ "$(verdict "$rm_" "<=" 2)" = met ] && echo met || echo NOT met)")
			fi
			SERIES+=("$(printf '| | %d tasks | %d MB | %.2f s | %.2f s | %d MB | %s |' "${sizes[$j]}" "$(du -sm "${dirs[$j]}" | cut -f1)" \
				"$(median "$f" 1)" "$(median "$f" 2)" $(( $(median "$f" 3) / 1024 )) "$growth")")
		done
		r=$(ratio "$WORK/out/series-$shape-scan.runs" "$WORK/out/series-$shape-3.runs" 1)
		SERIES+=("$(printf '| | speed vs bare gjson scan, %d tasks | | scan %.2f s | | | %.2f (%s, goal ≥ 0.50) |' "${sizes[3]}" \
			"$(median "$WORK/out/series-$shape-scan.runs" 1)" "$r" "$(verdict "$r" ">=" 0.5)")")
		rm -rf "${dirs[@]}"
	done
fi

echo
echo "machine: $(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(go version | awk '{print $3}'); load at the end $(cut -d' ' -f1-3 /proc/loadavg); medians of $RUNS runs"
echo
echo "| target | goal | measured (median) | |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
if [ ${#SERIES[@]} -gt 0 ]; then
	echo
	echo "Scaling series (analyze --format json; medians; growth: each size against the one before, runs paired)"
	echo
	echo "| shape | size | bytes | wall | cpu | peak RSS | growth (goal: cpu ≤ 2.2×, RSS ≤ 2×) |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${SERIES[@]}"
fi
