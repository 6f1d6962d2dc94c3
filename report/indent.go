package report

// indent appends to dst the compact JSON src (as json.Marshal writes it:
// no white space outside strings) indented as json.Indent(dst, src,
// prefix, ind) would, byte for byte (TestIndent_AsEncodingJSON). It skips
// json.Indent's general scanner, which was most of the time of rendering
// a large JSON report (issue 15): only strings need care here.
func indent(dst, src []byte, prefix, ind string) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for i := 0; i < depth; i++ {
			dst = append(dst, ind...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return append(dst, src[i:]...) // not compact JSON: copied as it is
			}
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1]) // json.Indent keeps {} and [] whole
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
