// Package editdist measures how far apart two short names are: the
// "did you mean" of the CLI's flags and the native reader's types a letter
// or two from a known one.
package editdist

import "unicode/utf8"

// Within returns the edit distance of a and b (insertions, deletions,
// substitutions, and a swap of two neighbours counted as one), or limit+1
// as soon as it is known to be over limit. A negative limit means none.
func Within(a, b string, limit int) int { return WithinWild(a, b, limit, -1) }

// WithinWild is Within where the rune wild in a stands for any one rune of
// b at no cost (-1: none does).
func WithinWild(a, b string, limit int, wild rune) int {
	if limit >= 0 {
		// Names of lengths too far apart are the common case of a
		// bounded question: answered before anything is allocated.
		if d := utf8.RuneCountInString(a) - utf8.RuneCountInString(b); d > limit || -d > limit {
			return limit + 1
		}
	}
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		least := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] || ra[i-1] == wild {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			least = min(least, cur[j])
		}
		if limit >= 0 && least > limit && (i == 1 || minOf(prev) > limit) {
			// Every later row grows from this one and the one before it
			// (a swap reads two rows back): when both are over limit,
			// so is the distance.
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(rb)]; limit < 0 || d <= limit {
		return d
	}
	return limit + 1
}

func minOf(xs []int) int {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}
