package editdist

import "testing"

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"sendfired", "sendfired", 2, 0},
		{"sentfired", "sendfired", 2, 1},
		{"snedfired", "sendfired", 2, 1}, // a swap is one edit
		{"s3ndf1red", "sendfired", 2, 2},
		{"s3ndf1r3d", "sendfired", 2, 3}, // over the limit: limit+1
		{"heartbeat", "sendfired", 2, 3},
		{"sendfiredtwice", "sendfired", 2, 3}, // lengths too far apart
		{"fromat", "format", -1, 1},
		{"fail-no", "fail-on", -1, 1},
		{"", "abc", -1, 3},
		{"kitten", "sitting", -1, 3},
		{"ꜱend", "send", 1, 1}, // runes, not bytes
	} {
		if got := Within(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Within(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// The bounded answer agrees with the unbounded one wherever it is within
// the limit.
func TestWithin_BoundAgreesWithTheDistance(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "abc", "acb", "send", "sned", "sendfired", "sentfired", "readback", "readbak", "response", "responses", "gatecheck"}
	for _, a := range words {
		for _, b := range words {
			d := Within(a, b, -1)
			for limit := 0; limit <= 3; limit++ {
				want := d
				if d > limit {
					want = limit + 1
				}
				if got := Within(a, b, limit); got != want {
					t.Errorf("Within(%q, %q, %d) = %d, want %d (distance %d)", a, b, limit, got, want, d)
				}
			}
		}
	}
}

func TestWithinWild(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"*e*dfired", "sendfired", 0},
		{"*********", "sendfired", 0},
		{"**********", "sendfired", 1},
		{"s*ndfirxd", "sendfired", 1},
		{"sendfired", "*endfired", 1}, // only a's wild rune is wild
	} {
		if got := WithinWild(c.a, c.b, 2, '*'); got != c.want {
			t.Errorf("WithinWild(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
