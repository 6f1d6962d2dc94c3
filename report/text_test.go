package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// When more tasks are notable than lanes fit, the rest share one lane that
// says how many tasks it holds, and the rows still fit the width.
func TestText_OverflowLaneCountsTheRestAndFits(t *testing.T) {
	r := scaleReport(30)
	for i := range r.Keys[0].Evidence {
		r.Keys[0].Evidence[i].Class = "crossing" // every task notable
	}
	r.Summary = Summary{FailOn: "high", States: map[string]int{}, Findings: map[string]int{}}
	for _, width := range []int{80, 100, 140} {
		var b bytes.Buffer
		if err := (textRenderer{opt: Options{Color: "never", Width: width}}).Analyze(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		var header string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  time ") {
				header = l
			}
			if n := len([]rune(l)); n > width {
				t.Errorf("width %d: a line of %d cells: %q", width, n, l)
			}
		}
		lanes := strings.Fields(header)[1:]
		for i, f := range lanes {
			if f == "task" {
				lanes = lanes[:i]
				break
			}
		}
		last := lanes[len(lanes)-1]
		if want := "+" + strconv.Itoa(30-(len(lanes)-1)); last != want {
			t.Errorf("width %d: lanes %v end in %q, want %q", width, lanes, last, want)
		}
		if !strings.Contains(out, "more drawn below") {
			t.Errorf("width %d: the task list is not capped", width)
		}
	}
}
