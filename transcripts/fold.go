package transcripts

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/effectlint/effectlint/internal/editdist"
)

// maxVariantBytes bounds the folded names the variant checks compare: the
// longest known name with room to spare. The input may be longer (padded
// with characters that fold away); folding stops once its result is
// longer.
const maxVariantBytes = 64

// foldName appends to dst the form that every spelling of one name shares
// (SPEC §3: a type or field that differs from a known one only in letter
// case or separators is a problem of its line): ASCII letters in lower
// case, digits; every other ASCII character (separators, punctuation,
// white space, controls such as a newline or NUL) is left out. Beyond
// ASCII, the name is decomposed (NFKD: fullwidth and mathematical letters
// become Latin ones, accents come apart), and what cannot be seen is left
// out (format characters such as a zero-width space, white space,
// controls, combining marks), as are dashes and other punctuation;
// letters of other scripts drawn like Latin ones (Cyrillic ѕ, Greek ο)
// read as those. An eighth review found "send_fired\u200b", "readback\n"
// and "ѕend_fired" (a Cyrillic ѕ) read as unknown types, their crossings
// lost. ok is false for any other character (another word) or a result
// over maxVariantBytes.
func foldName[T string | []byte](dst []byte, name T) ([]byte, bool) {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			dst = append(dst, c)
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		case c >= utf8.RuneSelf:
			return foldUnicode(dst, norm.NFKD.String(string(name[i:])))
		}
		if len(dst) > maxVariantBytes {
			return nil, false
		}
	}
	return dst, true
}

func foldUnicode(dst []byte, s string) ([]byte, bool) {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if c := byte(r); c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				dst = append(dst, c)
			} else if c >= 'A' && c <= 'Z' {
				dst = append(dst, c+'a'-'A')
			}
		case unicode.In(r, unicode.Cf, unicode.Cc, unicode.Zs, unicode.Zl, unicode.Zp, unicode.Mn, unicode.Me, unicode.P,
			unicode.Other_Default_Ignorable_Code_Point):
			// (Other_Default_Ignorable_Code_Point: letters drawn as
			// nothing, such as the Hangul fillers U+115F and U+3164.)
		case latinLookalike[r] != 0:
			dst = append(dst, latinLookalike[r])
		default:
			return nil, false
		}
		if len(dst) > maxVariantBytes {
			return nil, false
		}
	}
	return dst, true
}

// latinLookalike maps letters of other scripts drawn like a Latin letter
// to it, in lower case (after NFKD, which handles fullwidth and
// mathematical forms).
var latinLookalike = func() map[rune]byte {
	m := map[rune]byte{}
	for latin, others := range map[byte]string{
		'a': "аАαΑ", 'b': "ВвΒьЬ", 'c': "сСϲϹ", 'd': "ԁ", 'e': "еЕεΕ", 'g': "ɡ", 'h': "һНΗ",
		'i': "іІιΙӏ", 'j': "јЈϳ", 'k': "кКκΚ", 'l': "Ӏ", 'm': "мМΜ", 'n': "ΝпП", 'o': "оОοΟσ",
		'p': "рРρΡ", 'q': "ԛ", 's': "ѕЅ", 't': "тТτΤ", 'u': "υ", 'v': "νѵ", 'w': "ԝѡ",
		'x': "хХχΧ", 'y': "уУΥү", 'z': "Ζ",
	} {
		for _, r := range others {
			m[r] = latin
		}
	}
	// Latin letters drawn like another Latin letter: small capitals, the
	// dotless i and j, and the IPA forms of a, e, i, l and o.
	for latin, others := range map[byte]string{
		'a': "ᴀɑ", 'b': "ʙ", 'c': "ᴄ", 'd': "ᴅ", 'e': "ᴇɛ", 'g': "ɢ", 'h': "ʜ", 'i': "ıɪɩ",
		'j': "ȷᴊ", 'k': "ᴋ", 'l': "ʟ", 'm': "ᴍ", 'n': "ɴ", 'o': "ᴏɔ", 'p': "ᴘ", 'r': "ʀ",
		's': "ꜱ", 't': "ᴛ", 'u': "ᴜ", 'v': "ᴠ", 'w': "ᴡ", 'y': "ʏ", 'z': "ᴢ",
	} {
		for _, r := range others {
			m[r] = latin
		}
	}
	return m
}()

// knownNames is a set of known names with their folded forms, built once:
// a name that folds like a known one it is not misspells it (the
// smallest, in the rare case several fold alike).
type knownNames struct {
	names  map[string]bool
	folded map[string]string
	// nearMemo remembers near's answers: a history repeats its own types
	// on every line, and near compares with every known name.
	nearMemo *memo
}

// memo is a map bounded to memoSize entries (names beyond it are
// computed each time): the input chooses the names.
type memo struct {
	mu sync.Mutex
	m  map[string]string
}

const memoSize = 4096

func (c *memo) get(name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[name]
	return v, ok
}

func (c *memo) put(name, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) < memoSize {
		c.m[name] = v
	}
}

func newKnownNames(sets ...map[string]bool) knownNames {
	k := knownNames{names: map[string]bool{}, folded: map[string]string{}, nearMemo: &memo{m: map[string]string{}}}
	for _, set := range sets {
		for n := range set {
			k.names[n] = true
			var buf [maxVariantBytes]byte
			if f, ok := foldName(buf[:0], n); ok {
				if old, seen := k.folded[string(f)]; !seen || n < old {
					k.folded[string(f)] = n
				}
			}
		}
	}
	return k
}

// variant returns the known name that name misspells: "" when name is
// one of them, or misspells none.
func (k knownNames) variant(name string) string { return variantOf(k, name) }

// variantOf is variant for a name as bytes too, without a copy: the
// native fast path asks it for every key of every line.
func variantOf[T string | []byte](k knownNames, name T) string {
	if k.names[string(name)] {
		return ""
	}
	var buf [maxVariantBytes]byte
	f, ok := foldName(buf[:0], name)
	if !ok || len(f) == 0 {
		return ""
	}
	return k.folded[string(f)]
}

// near returns the known name that name comes within one edit of (two,
// for a known name of eight or more letters), once both are folded: a
// type one letter from send_fired ("send_fixed", "sendfíred" with a
// letter no table maps, "s3nd_fired") is a misspelt or disguised
// crossing as likely as another type, and read as an unknown type its
// crossing would be lost (a ninth review: a dotless ı, small capitals,
// a digit for a letter). "" when name is known itself, folds to fewer
// than five letters, or is near none; the smallest of several.
func (k knownNames) near(name string) string {
	if k.names[name] {
		return ""
	}
	if v, ok := k.nearMemo.get(name); ok {
		return v
	}
	v := k.nearUncached(name)
	k.nearMemo.put(name, v)
	return v
}

func (k knownNames) nearUncached(name string) string {
	var buf [maxVariantBytes]byte
	f, ok := foldLenient(buf[:0], name)
	if !ok || len(f) < 5 {
		return ""
	}
	best, bestDist := "", 3
	for kf, known := range k.folded {
		limit := 1
		if len(kf) >= 8 {
			limit = 2
		}
		if d := editdist.WithinWild(string(f), kf, limit, wildLetter); d <= limit && (d < bestDist || d == bestDist && known < best) {
			best, bestDist = known, d
		}
	}
	return best
}

// foldLenient is foldName with any character it cannot fold read as
// '?', a letter no name has (near counts it as one edit), or, for a letter
// of a script drawn like Latin that no table maps, as wildLetter, which
// near lets stand for any letter: a tenth review wrote send_fired in Lisu
// (ꓢꓰꓠꓓ_ꓝꓲꓣꓰꓓ), in Cherokee and Armenian capitals, and with Latin letters
// that carry a hook or a stroke (reaɗɓacƙ); tables of such letters do not
// end. Cyrillic and Greek have their table, and their other letters make
// other words (a Russian type name is another type).
func drawnLikeLatin(r rune) bool {
	return unicode.In(r, unicode.Lisu, unicode.Cherokee, unicode.Armenian, unicode.Coptic, unicode.Latin) && unicode.IsLetter(r)
}

// wildLetter stands, in a leniently folded name, for a letter drawn like
// a Latin one.
const wildLetter = '*'

func foldLenient(dst []byte, name string) ([]byte, bool) {
	if f, ok := foldName(dst, name); ok {
		return f, true
	}
	dst = dst[:0]
	for _, r := range norm.NFKD.String(name) {
		var one [maxVariantBytes]byte
		f, ok := foldName(one[:0], string(r))
		switch {
		case ok:
		case drawnLikeLatin(r):
			f = append(one[:0], wildLetter)
		default:
			f = append(one[:0], '?')
		}
		dst = append(dst, f...)
		if len(dst) > maxVariantBytes {
			return nil, false
		}
	}
	return dst, true
}
