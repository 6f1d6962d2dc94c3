package transcripts

import "io"

// Readers still to be written; each reports that it cannot read yet.
func (rn *run) readOpenAI(d *document)          { rn.notYet(d) }
func (rn *run) readOTel(d *document)            { rn.notYet(d) }
func (rn *run) readTemporal(d *document)        { rn.notYet(d) }
func (rn *run) readProfileDocument(d *document) { rn.notYet(d) }

func (rn *run) notYet(d *document) {
	d.in.Problems = append(d.in.Problems, Problem{File: d.in.Path, Line: 1, Message: "the " + d.in.Format + " reader is not built yet"})
}

func (rn *run) readProfileLines(src io.Reader, in *Input) {
	in.Problems = append(in.Problems, Problem{File: in.Path, Line: 1, Message: "the profile reader is not built yet"})
}
