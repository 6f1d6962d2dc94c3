package transcripts

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"pgregory.net/rapid"
)

// attachment answers what attachments.Get(gjsonKey(id)) answered, for
// plain ids from its map and for any other id through the path, over
// drawn attachments (repeated and escaped keys, values of every type,
// attachments that are no object).
func TestInspectAttachment_AsGet(t *testing.T) {
	ids := []string{"a1", "b2", "0", "", "x.y", "[a1]", "a-1_B", "a1 ", "é", "*"}
	rapid.Check(t, func(rt *rapid.T) {
		var b strings.Builder
		n := rapid.IntRange(0, 6).Draw(rt, "n")
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			k := rapid.SampledFrom(append(ids, `a\u0031`)).Draw(rt, "key")
			if k != `a\u0031` {
				k = strings.ReplaceAll(k, `"`, `\"`)
			}
			b.WriteString(`"` + k + `":` + rapid.SampledFrom([]string{`"text"`, `"t2"`, `1`, `null`, `{"x":"y"}`, `["z"]`}).Draw(rt, "value"))
		}
		b.WriteByte('}')
		doc := b.String()
		if rapid.IntRange(0, 5).Draw(rt, "shape") == 0 {
			doc = rapid.SampledFrom([]string{`["text","t2"]`, `"x"`, `null`}).Draw(rt, "not an object")
		}
		s := &inspectSampleReader{attachments: gjson.Parse(doc)}
		for _, id := range ids {
			want := s.attachments.Get(gjsonKey(id))
			if got := s.attachment(id); got.Raw != want.Raw || got.Type != want.Type || got.Str != want.Str {
				rt.Fatalf("%s, id %q: %q, Get gives %q", doc, id, got.Raw, want.Raw)
			}
		}
	})
}
