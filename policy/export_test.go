package policy

import (
	"context"

	"github.com/effectlint/effectlint/analyzer"
)

// AskedTogetherAndAlone answers the questions over one history twice: one
// after the other with the values shared between them (as CheckEach shares
// them between one check's questions, here across all of them), and each
// alone, with nothing shared.
func AskedTogetherAndAlone(e *Engine, f *analyzer.Facts, qs []*analyzer.Query) (together, alone []*Gate, err error) {
	ctx := context.Background()
	doc := newCheckDoc(f, e.scopeTypes, e.unkeyedTypes)
	for _, q := range qs {
		g, err := e.check1(ctx, doc, q)
		if err != nil {
			return nil, nil, err
		}
		together = append(together, g)
		g, err = e.check1(ctx, newCheckDoc(f, e.scopeTypes, e.unkeyedTypes), q)
		if err != nil {
			return nil, nil, err
		}
		alone = append(alone, g)
	}
	return together, alone, nil
}
