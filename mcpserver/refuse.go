package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/effectlint/effectlint/gate"
	"github.com/effectlint/effectlint/internal/ops"
)

// refuseErrors makes every failed call of one of the tools a refusal with
// the tool's structured shape. The SDK answers arguments its schema
// rejects (a token given as a string, an unknown field) with an error
// result that has no structured content, and a handler's panic or an
// output that fails its schema as an error; each becomes the tool's
// refusal: a stop decision, granted false, no key, no explanation, with
// IsError set. Calls of unknown tools stay the protocol errors they are.
func (s *Server) refuseErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ct, ok := req.(*mcp.CallToolRequest)
		if !ok || ct.Params == nil || !isTool(ct.Params.Name) {
			return next(ctx, method, req)
		}
		defer func() {
			if r := recover(); r != nil {
				res, err = s.refusal(ct.Params, fmt.Sprintf("internal error: %v", r)), nil
			}
		}()
		res, err = next(ctx, method, req)
		if err != nil {
			return s.refusal(ct.Params, err.Error()), nil
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil {
			return s.refusal(ct.Params, "the tool gave no result"), nil
		}
		if r.StructuredContent == nil {
			return s.refusal(ct.Params, textOf(r)), nil
		}
		return r, nil
	}
}

func isTool(name string) bool {
	for _, t := range Tools {
		if t == name {
			return true
		}
	}
	return false
}

func textOf(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "the call failed"
	}
	return strings.Join(parts, "; ")
}

// refusal is the tool's refusal for a call that failed before or around
// its handler. What of the arguments can be read is echoed (the task and
// checkpoint of a check), nothing else.
func (s *Server) refusal(p *mcp.CallToolParamsRaw, msg string) *mcp.CallToolResult {
	var args struct{ Task, Checkpoint string }
	_ = json.Unmarshal(p.Arguments, &args) // best effort: fields of the wrong type stay empty
	var v any
	switch p.Name {
	case ToolCheck:
		v = gate.Failed(gate.Request{Task: args.Task, Checkpoint: args.Checkpoint}, fmt.Errorf("%s", msg)).CheckReport
	case ToolClaim, ToolCross, ToolSettle:
		a := ops.Refusal(p.Name, "", "", s.cfg.Ledger, ops.InvalidRequest, "the call could not be made: "+msg)
		v = &a
	case ToolKey:
		_, v, _ = keyRefusal("the call could not be made: " + msg)
	default:
		_, v, _ = explainRefusal(msg)
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{}`)
	}
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
