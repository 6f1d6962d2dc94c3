package report

// Escape makes transcript text (task ids, keys, messages) safe to print on
// a terminal: control characters, escape sequences included, are shown
// escaped (\x1b), never interpreted. For output outside the renderers,
// such as test diffs and explanations.
func Escape(s string) string { return clean(s) }
