package transcripts

// readTemporal is not built yet: the input is reported, never silently passed.
func (rn *run) readTemporal(d *document) {
	d.in.Problems = append(d.in.Problems, Problem{File: d.in.Path, Line: 1, Message: "the " + d.in.Format + " reader is not built yet"})
}
