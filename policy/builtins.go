package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/effectlint/effectlint/effect"
)

// foldedIdentities is the one builtin effectlint adds to OPA's:
// effectlint.folded_identities(provider, id) is
// effect.Destination{Provider, ID}.FoldedIdentities(), the identities
// "may be the same" compares (letter case folded; for a URL, its scheme,
// default port and the readings of its path), as an array. The rules call
// it rather than say it in Rego, for two reasons found by the fortieth
// and forty-first reviews: the index that picks a check's scopes (Go) and
// the rules that weigh them must fold alike, which one function
// guarantees; and removing dot segments in Rego, without a loop, cost
// 4–12 times Go's on a long path (a 1 MB id: 6.8 s).
var foldedIdentities = &ast.Builtin{
	Name: "effectlint.folded_identities",
	Decl: types.NewFunction(
		types.Args(types.Named("provider", types.S), types.Named("id", types.S)),
		types.Named("identities", types.NewArray(nil, types.S)),
	),
}

func init() {
	ast.RegisterBuiltin(foldedIdentities) // so the capabilities (sandbox) declare it
	topdown.RegisterBuiltinFunc(foldedIdentities.Name, func(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		p, err := builtins.StringOperand(ops[0].Value, 1)
		if err != nil {
			return err
		}
		id, err := builtins.StringOperand(ops[1].Value, 2)
		if err != nil {
			return err
		}
		ids := effect.Destination{Provider: string(p), ID: string(id)}.FoldedIdentities()
		terms := make([]*ast.Term, len(ids))
		for i, x := range ids {
			terms[i] = ast.StringTerm(x)
		}
		return iter(ast.ArrayTerm(terms...))
	})
}
