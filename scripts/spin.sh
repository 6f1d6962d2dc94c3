#!/usr/bin/env bash
# Check the key ledger's protocol model, ledger/model/ledger.pml, with spin
# (README there): every run builds pan in a temporary directory and searches
# the whole state space (safety mode). The model must verify with 0 errors;
# each broken variant must fail, and on the property it breaks (the shortest
# counterexample, pan -i, is replayed and printed as one line).
#
#   scripts/spin.sh                    every run below
#   EFFECTLINT_SPIN=/opt/spin/spin scripts/spin.sh
#   SPIN_KEEP=DIR scripts/spin.sh      keep each run's pan, logs and trail in DIR
#
# One line per run: ok or FAIL, the name, pan's figures. Exit 0 when every
# run went as expected, 1 when one did not, 2 when spin or the C compiler
# (CC, default gcc) is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

spin=${EFFECTLINT_SPIN:-spin}
cc=${CC:-gcc}
model=$PWD/ledger/model/ledger.pml
command -v "$spin" > /dev/null || { echo "spin.sh: no spin ($spin): apt-get install spin"; exit 2; }
command -v "$cc" > /dev/null || { echo "spin.sh: no C compiler ($cc)"; exit 2; }

if [ -n "${SPIN_KEEP:-}" ]; then
	mkdir -p "$SPIN_KEEP"; work=$(cd "$SPIN_KEEP" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/effectlint-spin.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

failed=0
# field LOG PATTERN: the number before PATTERN in pan's output ("states, stored")
field() { grep -Eo "[0-9.e+]+ $2" "$1" | head -n 1 | cut -d' ' -f1; }

# run NAME EXPECT DEFINES...: EXPECT is pass, or the property label the
# violated assertion's comment names (P1: ..., P2: ..., P3: ...).
run() {
	local name=$1 expect=$2; shift 2
	local dir=$work/$name start=$SECONDS
	mkdir -p "$dir"; cp "$model" "$dir/ledger.pml"
	if ! (cd "$dir" && "$spin" -a "$@" ledger.pml > spin.log 2>&1); then
		echo "FAIL $name: spin -a $*: $(tail -n 3 "$dir/spin.log" | tr '\n' ' ')"; failed=1; return
	fi
	# -O0: gcc -O2 takes longer over pan.c than pan over these state spaces
	local cflags=(${SPIN_OPT:--O0} -w -DSAFETY) panflags=(-m10000 -w23)
	# a broken variant: pan -i searches on for the shortest counterexample
	# (and counts every shorter one it finds among its errors)
	local trail_note=
	if [ "$expect" != pass ]; then cflags+=(-DREACH); panflags+=(-i); trail_note=" (pan -i)"; fi
	if ! (cd "$dir" && "$cc" "${cflags[@]}" -o pan pan.c > cc.log 2>&1); then
		echo "FAIL $name: $cc: $(tail -n 3 "$dir/cc.log" | tr '\n' ' ')"; failed=1; return
	fi
	(cd "$dir" && ./pan "${panflags[@]}" > pan.log 2>&1) || true
	local log=$dir/pan.log errors states trans depth took
	errors=$(grep -Eo 'errors: [0-9]+' "$log" | head -n 1 | cut -d' ' -f2)
	states=$(field "$log" 'states, stored')
	trans=$(field "$log" 'transitions')
	depth=$(grep -Eo 'depth reached [0-9]+' "$log" | head -n 1 | cut -d' ' -f3)
	took=$(grep -Eo 'elapsed time [0-9.e+-]+' "$log" | cut -d' ' -f3)
	local figures="errors ${errors:-?}${trail_note:-}, ${states:-?} states stored, ${trans:-?} transitions, depth ${depth:-?}, pan ${took:-?} s, $((SECONDS - start)) s in all [$*]"
	if [ -z "$errors" ]; then
		echo "FAIL $name: pan gave no result: $(tail -n 3 "$log" | tr '\n' ' ')"; failed=1; return
	fi
	if [ "$expect" = pass ]; then
		if [ "$errors" != 0 ]; then
			echo "FAIL $name: want 0 errors: $figures; $(grep -m1 'violated' "$log")"; failed=1
		elif grep -q 'max search depth too small' "$log"; then
			echo "FAIL $name: the search was cut at -m: $figures"; failed=1
		else
			echo "ok   $name: $figures"
		fi
		return
	fi
	if [ "$errors" = 0 ] || [ ! -f "$dir/ledger.pml.trail" ]; then
		echo "FAIL $name: want a counterexample ($expect): $figures"; failed=1; return
	fi
	# replay the trail: one printed line per store operation, then spin
	# names the line of the violated assertion
	(cd "$dir" && "$spin" -t -T "$@" ledger.pml > replay.log 2>&1) || true
	local line broke steps
	line=$(grep -Eo 'ledger.pml:[0-9]+, Error: assertion violated' "$dir/replay.log" | head -n 1 | cut -d: -f2 | cut -d, -f1)
	broke=$( [ -n "$line" ] && sed -n "${line}p" "$model" | grep -Eo 'P[123]: [^*]*' | sed 's/ *$//' )
	steps=$(grep -E '^(w[0-9]|clock|authorize)' "$dir/replay.log" | sed -E 's/;.*//' | paste -sd'|' - | sed 's/|/ | /g')
	if [ "${broke%%:*}" != "$expect" ]; then
		echo "FAIL $name: want $expect violated, got '${broke:-no assertion}': $figures: $steps"; failed=1
	else
		echo "ok   $name: $broke after $(grep -cE '^(w[0-9]|clock|authorize)' "$dir/replay.log") steps: $steps; $figures"
	fi
}

# The bounds (README, Bounds): 3 workers and at most 5 tokens granted, then
# 4 workers and 4 tokens; scope A; the broken variants. Under 30 s in all on
# two cores, most of it gcc.
run model                    pass
run model-scope-a            pass -DSCOPE_A
run model-4-workers          pass -DNWORKERS=4 -DMAXTOK=4
run broken-expiry            P2   -DBROKEN_EXPIRY
run broken-expiry-effect     P1   -DBROKEN_EXPIRY -DONLY_EFFECT
run broken-fence             P3   -DBROKEN_FENCE
run broken-fence-effect      P1   -DBROKEN_FENCE -DONLY_EFFECT

[ "$failed" = 0 ] || { echo "spin.sh: some run did not go as expected"; exit 1; }
echo "spin.sh: ok"
