package transcripts

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"pgregory.net/rapid"
)

// referenceCanonical is the canonical text canonicalDigest hashed before
// the hash tree: keys sorted (stably), strings decoded and written by
// length, numbers and literals as written. It is the oracle: two values
// must have one digest exactly when they have one reference text.
func referenceCanonical(b *bytes.Buffer, r gjson.Result) {
	str := func(s string) {
		b.WriteString("s" + strconv.Itoa(len(s)) + ":" + s)
	}
	switch {
	case r.IsObject():
		type kv struct {
			k string
			v gjson.Result
		}
		var kvs []kv
		r.ForEach(func(k, v gjson.Result) bool {
			kvs = append(kvs, kv{k.String(), v})
			return true
		})
		sort.SliceStable(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
		b.WriteByte('{')
		for i, x := range kvs {
			if i > 0 {
				b.WriteByte(',')
			}
			str(x.k)
			b.WriteByte(':')
			referenceCanonical(b, x.v)
		}
		b.WriteByte('}')
	case r.IsArray():
		b.WriteByte('[')
		i := 0
		r.ForEach(func(_, v gjson.Result) bool {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			referenceCanonical(b, v)
			return true
		})
		b.WriteByte(']')
	case r.Type == gjson.String:
		str(r.Str)
	default:
		b.WriteString(r.Raw)
	}
}

func reference(s string) string {
	var b bytes.Buffer
	referenceCanonical(&b, gjson.Parse(s))
	return b.String()
}

// jsonTree is a drawn JSON value, written out in several ways (render).
type jsonTree struct {
	kind   byte     // 's' string, 'n' number or literal, '[' array, '{' object
	text   string   // a string's decoded text, a number's or literal's text
	keys   []string // an object's decoded keys
	values []*jsonTree
}

// drawTree draws from few keys and scalars, so that two draws are often
// one value, and values that only a lost separator or escape would make
// one ([1,2] and [12], "a" and "\u0061" decoded or not) are drawn too.
func drawTree(rt *rapid.T, depth int) *jsonTree {
	scalar := func() *jsonTree {
		if rapid.Bool().Draw(rt, "string") {
			return &jsonTree{kind: 's', text: rapid.SampledFrom([]string{"", "x", "a", "x\ny", "é", "s1:x", "12", `"`}).Draw(rt, "text")}
		}
		return &jsonTree{kind: 'n', text: rapid.SampledFrom([]string{"1", "2", "12", "1.0", "true", "null"}).Draw(rt, "number")}
	}
	if depth <= 0 {
		return scalar()
	}
	switch rapid.IntRange(0, 2).Draw(rt, "kind") {
	case 0:
		return scalar()
	case 1:
		t := &jsonTree{kind: '['}
		for range rapid.IntRange(0, 3).Draw(rt, "len") {
			t.values = append(t.values, drawTree(rt, depth-1))
		}
		return t
	default:
		t := &jsonTree{kind: '{'}
		for range rapid.IntRange(0, 3).Draw(rt, "len") {
			t.keys = append(t.keys, rapid.SampledFrom([]string{"a", "b", "", "a/b", "é"}).Draw(rt, "key"))
			t.values = append(t.values, drawTree(rt, depth-1))
		}
		return t
	}
}

// render writes t as JSON. With vary, white space, escapes and the order
// of an object's members change (members are put in key order, stably, so
// a repeated key keeps its place among its equals): the value stays one.
func render(rt *rapid.T, t *jsonTree, vary bool) string {
	ws := func() string {
		if !vary {
			return ""
		}
		return rapid.SampledFrom([]string{"", " ", "\n\t"}).Draw(rt, "ws")
	}
	str := func(s string) string {
		if vary && rapid.Bool().Draw(rt, "escape") {
			var b strings.Builder
			b.WriteByte('"')
			for _, r := range s {
				b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
			}
			return b.String() + `"`
		}
		q, _ := json.Marshal(s)
		return strings.ReplaceAll(string(q), "/", `\/`)
	}
	switch t.kind {
	case 's':
		return str(t.text)
	case 'n':
		return t.text
	case '[':
		parts := make([]string, len(t.values))
		for i, v := range t.values {
			parts[i] = ws() + render(rt, v, vary) + ws()
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	order := make([]int, len(t.keys))
	for i := range order {
		order[i] = i
	}
	if vary && rapid.Bool().Draw(rt, "sort") {
		sort.SliceStable(order, func(i, j int) bool { return t.keys[order[i]] < t.keys[order[j]] })
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = ws() + str(t.keys[k]) + ws() + ":" + ws() + render(rt, t.values[k], vary)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestCanonicalDigest_SameAsReference: two writings of one value have one
// digest; two drawn values have one digest exactly when they have one
// reference text (repeated keys, escapes, white space, numbers written
// differently, [1,2] against [12]).
func TestCanonicalDigest_SameAsReference(t *testing.T) {
	same, differ := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		ta, tb := drawTree(rt, 3), drawTree(rt, 3)
		a, a2, b := render(rt, ta, false), render(rt, ta, true), render(rt, tb, false)
		for _, s := range []string{a, a2, b} {
			if !gjson.Valid(s) {
				rt.Fatalf("the generator wrote invalid JSON: %s", s)
			}
		}
		d := func(s string) string { return canonicalDigest(gjson.Parse(s), "h") }
		if reference(a) != reference(a2) {
			rt.Fatalf("the generator changed the value: %s and %s", a, a2)
		}
		if d(a) != d(a2) {
			rt.Fatalf("%s and %s are one value but have two digests", a, a2)
		}
		if ra, rb := reference(a), reference(b); (ra == rb) != (d(a) == d(b)) {
			rt.Fatalf("%s and %s: reference texts equal %v, digests equal %v", a, b, ra == rb, d(a) == d(b))
		}
		if a != a2 {
			same++ // one value, written two ways
		}
		if reference(a) != reference(b) {
			differ++
		}
	})
	if same == 0 || differ == 0 {
		t.Fatalf("drawn pairs: %d of one value written two ways, %d of different values: the test says little", same, differ)
	}
}

// TestCanonicalDigest_Heads: the heads are part of the digest, and a head
// cannot run into the value or into the next head.
func TestCanonicalDigest_Heads(t *testing.T) {
	v := gjson.Parse(`{"a":1}`)
	seen := map[string]string{}
	for _, heads := range [][]string{{}, {""}, {"a"}, {"a", ""}, {"", "a"}, {"ab"}, {"a", "b"}} {
		d := canonicalDigest(v, heads...)
		if prev, ok := seen[d]; ok {
			t.Fatalf("heads %q and %s give one digest", heads, prev)
		}
		seen[d] = strconv.Quote(strings.Join(heads, "|"))
	}
	if canonicalDigest(gjson.Result{}) == canonicalDigest(gjson.Parse(`""`)) {
		t.Fatal("no value and the empty string give one digest")
	}
}

// TestCanonicalDigest_Deep: a value millions of levels deep is digested
// in one pass (the walk it replaced re-scanned each level once for every
// container around it: a 10 MB line had not finished after 24 minutes),
// and two writings of it have one digest while a changed leaf has another.
func TestCanonicalDigest_Deep(t *testing.T) {
	const n = 1 << 20
	arrays := strings.Repeat("[", n) + "1" + strings.Repeat("]", n)
	spaced := strings.Repeat("[ ", n) + "1" + strings.Repeat(" ]", n)
	changed := strings.Repeat("[", n) + "2" + strings.Repeat("]", n)
	objects := strings.Repeat(`{"b":0,"a":`, n/4) + "1" + strings.Repeat("}", n/4)
	reordered := strings.Repeat(`{"a":`, n/4) + "1" + strings.Repeat(`,"b":0}`, n/4)
	for _, s := range []string{arrays, spaced, changed, objects, reordered} {
		if !validJSONString(s) {
			t.Fatal("not JSON")
		}
	}
	d := func(s string) string { return canonicalDigest(gjson.Parse(s)) }
	if d(arrays) != d(spaced) {
		t.Error("two writings of one deep array differ")
	}
	if d(arrays) == d(changed) {
		t.Error("a changed leaf deep inside gives the same digest")
	}
	if d(objects) != d(reordered) {
		t.Error("two key orders of one deep object differ")
	}
}

// TestCanonicalDigest_AnyText: no text makes it panic or loop (it is
// given only validated JSON, but it must not trust that for its safety).
func TestCanonicalDigest_AnyText(t *testing.T) {
	alphabet := []byte(`{}[]",:\ 1an"`)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		_ = canonicalDigest(gjson.Result{Raw: string(b), Type: gjson.JSON})
	}
}

// TestCanonicalDigest_Pairs: values one lost separator, length or escape
// would make one, and writings that must stay one.
func TestCanonicalDigest_Pairs(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`[1,2]`, `[12]`, false},
		{`["a","b"]`, `["ab"]`, false},
		{`["a",""]`, `["a"]`, false},
		{`[[]]`, `[]`, false},
		{`[[],[]]`, `[[[]]]`, false},
		{`{"a":1,"b":2}`, `{"a":12}`, false},
		{`{"ab":1}`, `{"a":"b1"}`, false},
		{`{"a":{}}`, `{"a":[]}`, false},
		{`{"a":"1"}`, `{"a":1}`, false},
		{`{"a":1}`, `{"b":1}`, false},
		{`{"a":1,"a":2}`, `{"a":2,"a":1}`, false},
		{`1`, `1.0`, false},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`, true},
		{`{"b":1,"a":2,"a":3}`, `{"a":2,"a":3,"b":1}`, true},
		{`["\u0061\/"]`, `["a/"]`, true},
		{`["a\"\n\t\\\/\b\f\rb"]`, `["a\u0022\u000a\u0009\u005c/\u0008\u000c\u000db"]`, true},
		{`{"k\n":"\n"}`, `{"k\u000a":"\u000a"}`, true},
		{`["a\nb"]`, `["a\\nb"]`, false},
		{"[ 1 ,\n2 ]", `[1,2]`, true},
		{`{"\u0062":[{"y":1,"x":2}],"a":0}`, `{"a":0,"b":[{"x":2,"y":1}]}`, true},
	} {
		if r := reference(c.a) == reference(c.b); r != c.same {
			t.Fatalf("%s, %s: the reference says one value %v, the table %v", c.a, c.b, r, c.same)
		}
		da, db := canonicalDigest(gjson.Parse(c.a)), canonicalDigest(gjson.Parse(c.b))
		if (da == db) != c.same {
			t.Errorf("%s and %s: one digest %v, want %v", c.a, c.b, da == db, c.same)
		}
	}
}
