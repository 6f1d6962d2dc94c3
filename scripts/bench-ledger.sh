#!/usr/bin/env bash
# The key ledger's performance (docs/ledger.md, "Performance"): the
# whole-process latency of `effectlint claim`, `cross` and `settle` on SQLite
# and PostgreSQL next to that of `effectlint key` (what any command costs to
# start), then the Go benchmarks of ledger/sqlite and ledger/postgres
# (in-process latency and throughput). Prints Markdown tables. Not part of
# `go test`; no figure here is a test's threshold.
#
#   scripts/bench-ledger.sh                        200 worker loops per store, benchmarks 2000x
#   RUNS=5 BENCHTIME=20x scripts/bench-ledger.sh   a smoke run (CI)
#   COUNT=3 scripts/bench-ledger.sh                each benchmark 3 times (ranges min–max)
#   GO_BENCH=0 scripts/bench-ledger.sh             the whole-process part only
#   BENCH='Claim$' scripts/bench-ledger.sh         only the benchmarks matching (go test -bench)
#
# PostgreSQL: the server of $EFFECTLINT_BENCH_POSTGRES, else
# $EFFECTLINT_TEST_POSTGRES (scripts/postgres.sh start prints one), a role
# that may create databases (psql is needed). The whole-process part runs in
# a fresh database, dropped at the end; the benchmarks each in a fresh
# schema of the URL's database. Without a URL, PostgreSQL is left out (said
# so in the output); with REQUIRE_POSTGRES=1 that is a failure.
#
# Each round runs, one right after the other, `key` (a fresh key), then on
# each store `claim`, `cross` and `settle` of that key, so that load from
# other processes hits every command alike. A time is the shell's
# EPOCHREALTIME around one run (fork, exec, the whole process, wait); the
# same overhead is in `key`'s. Any command that fails (or refuses) stops
# the script with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-200}
BENCHTIME=${BENCHTIME:-2000x}
COUNT=${COUNT:-1}
GO_BENCH=${GO_BENCH:-1}
BENCH=${BENCH:-.}
PG_URL=${EFFECTLINT_BENCH_POSTGRES:-${EFFECTLINT_TEST_POSTGRES:-}}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/effectlint-bench-ledger.XXXXXX")
PG_DB=""

die() { echo "bench-ledger.sh: $*" >&2; exit 1; }

cleanup() {
	if [ -n "$PG_DB" ]; then
		psql -q -X "$PG_URL" -c "drop database if exists $PG_DB" > /dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

[ "$RUNS" -ge 1 ] 2> /dev/null || die "RUNS must be a positive integer, not '$RUNS'"
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (EPOCHREALTIME)"

echo "== building into $WORK"
go build -o "$WORK/effectlint" .
BIN=$WORK/effectlint

STORES=(sqlite)
declare -A LEDGER
LEDGER[sqlite]="sqlite:$WORK/ledger.db"
if [ -n "$PG_URL" ]; then
	command -v psql > /dev/null || die "psql is needed to create the benchmark's database"
	PG_DB=effectlint_bench_$$
	psql -q -X -v ON_ERROR_STOP=1 "$PG_URL" -c "create database $PG_DB" > /dev/null || die "cannot create database $PG_DB"
	# The URL with its database replaced.
	LEDGER[postgres]=$(printf '%s' "$PG_URL" | sed -E "s#^(postgres(ql)?://[^/?]*)(/[^?]*)?#\1/$PG_DB#")
	STORES+=(postgres)
elif [ "${REQUIRE_POSTGRES:-}" = 1 ]; then
	die "REQUIRE_POSTGRES=1 and neither EFFECTLINT_BENCH_POSTGRES nor EFFECTLINT_TEST_POSTGRES is set"
else
	echo "== no PostgreSQL URL (EFFECTLINT_BENCH_POSTGRES or EFFECTLINT_TEST_POSTGRES): SQLite only"
fi

for s in "${STORES[@]}"; do
	"$BIN" ledger init --ledger "${LEDGER[$s]}" > /dev/null || die "ledger init on $s failed"
done

machine() {
	echo "$(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(go version | awk '{print $3}'), load $(cut -d' ' -f1-3 /proc/loadavg)"
}
echo "== machine: $(machine)"
echo "== SQLite file on $(df -T "$WORK" | awk 'NR == 2 {print $2 " (" $1 ")"}')"
if [ -n "$PG_URL" ]; then
	echo "== PostgreSQL $(psql -X -A -t "$PG_URL" -c 'show server_version'), fsync=$(psql -X -A -t "$PG_URL" -c 'show fsync'), synchronous_commit=$(psql -X -A -t "$PG_URL" -c 'show synchronous_commit')"
fi

# timed NAME CMD...: runs CMD (stdout to $WORK/out), appends its wall time
# in ms to $WORK/NAME.ms; a non-zero exit stops the script.
timed() {
	local name=$1; shift
	local t0 t1 code=0
	t0=$EPOCHREALTIME
	"$@" > "$WORK/out" 2> "$WORK/err" || code=$?
	t1=$EPOCHREALTIME
	if [ "$code" -ne 0 ]; then
		cat "$WORK/out" "$WORK/err" >&2
		die "$name exited $code: $*"
	fi
	echo "$t0 $t1" | awk '{printf "%.3f\n", ($2 - $1) * 1000}' >> "$WORK/$name.ms"
}

echo "== $RUNS rounds: key, then claim, cross, settle on ${STORES[*]}"
for i in $(seq "$RUNS"); do
	timed true /bin/true
	timed key "$BIN" key --destination slack/C1 --sha256 "$(printf '%064x' "$i")"
	key=$(< "$WORK/out")
	for s in "${STORES[@]}"; do
		timed "$s-claim" "$BIN" claim --ledger "${LEDGER[$s]}" --task "bench-$i" --key "$key" --lease 5m
		token=""
		while read -r field value _; do
			if [ "$field" = token ]; then token=$value; fi
		done < "$WORK/out"
		[ -n "$token" ] || die "no token in claim's answer: $(cat "$WORK/out")"
		timed "$s-cross" "$BIN" cross --ledger "${LEDGER[$s]}" --key "$key" --token "$token"
		timed "$s-settle" "$BIN" settle --ledger "${LEDGER[$s]}" --key "$key" --token "$token" --outcome confirmed
	done
done

# quantile FILE P: the nearest-rank P-quantile (0 < P ≤ 1).
quantile() { sort -g "$1" | awk -v p="$2" '{a[NR] = $1} END {i = int(p * NR); if (i < p * NR) i++; if (i < 1) i = 1; print a[i]}'; }
key50=$(quantile "$WORK/key.ms" 0.50)
key99=$(quantile "$WORK/key.ms" 0.99)

echo
echo "Whole process, $RUNS runs each ($(machine) at the end)"
echo
echo "| command | store | p50 ms | p99 ms | p50 − key p50 | p99 − key p99 | claim ≤ key + 30 ms (p50) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '| `/bin/true` (the shell'"'"'s fork and exec) | – | %.1f | %.1f | | | |\n' "$(quantile "$WORK/true.ms" 0.5)" "$(quantile "$WORK/true.ms" 0.99)"
printf '| `key --destination slack/C1 --sha256 …` | – | %.1f | %.1f | | | |\n' "$key50" "$key99"
for s in "${STORES[@]}"; do
	for op in claim cross settle; do
		p50=$(quantile "$WORK/$s-$op.ms" 0.50)
		p99=$(quantile "$WORK/$s-$op.ms" 0.99)
		verdict=""
		if [ "$op" = claim ]; then
			verdict=$(awk -v a="$p50" -v k="$key50" 'BEGIN {print (a - k <= 30) ? "met" : "NOT met"}')
		fi
		awk -v op="$op" -v s="$s" -v a="$p50" -v b="$p99" -v k50="$key50" -v k99="$key99" -v v="$verdict" \
			'BEGIN {printf "| `%s` | %s | %.1f | %.1f | %+.1f | %+.1f | %s |\n", op, s, a, b, a - k50, b - k99, v}'
	done
done

[ "$GO_BENCH" = 1 ] || exit 0

# The Go benchmarks' lines as a table: each metric in ms or per second,
# min–max over COUNT runs. SQLite's parallel benchmarks report no ops/s:
# b.N claims in b.N × ns/op of wall time is 1e9 / ns/op per second.
benchtable() {
	awk '
		/^Benchmark/ {
			name = $1; sub(/-[0-9]+$/, "", name)
			if (!(name in seen)) { seen[name] = 1; order[++n] = name }
			delete m
			for (i = 3; i < NF; i += 2) m[$(i + 1)] = $i
			v["ms/op", name, ++c[name]] = m["ns/op"] / 1e6
			v["p50", name, c[name]] = ("p50-ms" in m) ? m["p50-ms"] : ("p50-ns" in m) ? m["p50-ns"] / 1e6 : ""
			v["p99", name, c[name]] = ("p99-ms" in m) ? m["p99-ms"] : ("p99-ns" in m) ? m["p99-ns"] / 1e6 : ""
			v["ops", name, c[name]] = ("ops/s" in m) ? m["ops/s"] : (name ~ /Parallel/) ? 1e9 / m["ns/op"] : ""
			v["grants", name, c[name]] = ("grants/s" in m) ? m["grants/s"] : ""
		}
		function range(k, name, fmt,   i, lo, hi, x) {
			lo = ""; hi = ""
			for (i = 1; i <= c[name]; i++) {
				x = v[k, name, i]
				if (x == "") continue
				x += 0
				if (lo == "" || x < lo) lo = x
				if (hi == "" || x > hi) hi = x
			}
			if (lo == "") return "–"
			if (sprintf(fmt, lo) == sprintf(fmt, hi)) return sprintf(fmt, lo)
			return sprintf(fmt "–" fmt, lo, hi)
		}
		END {
			print "| benchmark | runs | ms/op | p50 ms | p99 ms | ops/s | grants/s |"
			print "| --- | --- | --- | --- | --- | --- | --- |"
			for (j = 1; j <= n; j++) {
				x = order[j]
				printf "| %s | %d | %s | %s | %s | %s | %s |\n", x, c[x], range("ms/op", x, "%.3g"), range("p50", x, "%.3g"),
					range("p99", x, "%.3g"), range("ops", x, "%.0f"), range("grants", x, "%.0f")
			}
		}' "$1"
}

pkgs=(./ledger/sqlite)
if [ -n "$PG_URL" ]; then pkgs+=(./ledger/postgres); fi
for p in "${pkgs[@]}"; do
	echo
	echo "== go test -run '^\$' -bench '$BENCH' -benchtime $BENCHTIME -count $COUNT $p"
	EFFECTLINT_TEST_POSTGRES=$PG_URL go test -run '^$' -bench "$BENCH" -benchtime "$BENCHTIME" -count "$COUNT" "$p" | tee "$WORK/bench.txt"
	echo
	echo "In-process, $p ($(machine) at the end)"
	echo
	benchtable "$WORK/bench.txt"
done
