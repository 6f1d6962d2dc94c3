package transcripts

import "sort"

// lineIndex maps byte offsets of a JSON document to 1-based line numbers,
// so that evidence in pretty-printed documents points at a real line.
type lineIndex []int // offsets of the newlines

func newLineIndex(doc []byte) lineIndex {
	var idx lineIndex
	for i, b := range doc {
		if b == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

// line returns the line of offset.
func (x lineIndex) line(offset int) int {
	return sort.SearchInts(x, offset) + 1
}
