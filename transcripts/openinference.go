package transcripts

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// FormatOpenInference names OpenTelemetry spans written with the
// OpenInference conventions (Arize Phoenix, the OpenInference
// instrumentations). They are OpenTelemetry spans: the OpenTelemetry reader
// reads them, in every envelope it knows (OTLP/JSON, the Python SDK's dump,
// Phoenix's span JSON), and --input-format openinference reads a document
// with it too.
const FormatOpenInference = "openinference"

// openInferenceSpan maps a span's OpenInference attributes onto the GenAI
// names the reader judges, never over a GenAI attribute the span has (where
// both name the tool, call id, arguments or result they must agree, and
// the kinds must agree with each other and with gen_ai.operation.name:
// else the span has two readings, a conflict, which otel.go makes a
// problem):
//   - openinference.span.kind TOOL (or Phoenix's span_kind) is an
//     execute_tool span; any other kind (LLM, CHAIN, AGENT, ...) is a GenAI
//     span of its trace's task, with no evidence of its own;
//   - tool.name is gen_ai.tool.name (else the span's name, as OpenInference
//     names tool spans by their tool);
//   - input.value (else tool_call.function.arguments) is the call's
//     arguments: a JSON object as is, any other text as {"input": text};
//   - output.value is the call's result (an error by toolresult.go's
//     convention);
//   - tool_call.id is gen_ai.tool.call.id;
//   - session.id names the task, as gen_ai.conversation.id does.
//
// Attributes given as nested objects ({"tool": {"name": ...}}, as Phoenix
// exports them) are read as their dotted names. Phoenix's top-level
// status_code is the span's status when it has no status object.
func openInferenceSpan(s *otelSpan) {
	for _, k := range []string{"openinference", "tool", "tool_call", "input", "output", "session"} {
		if v, ok := s.attrs[k]; ok && strings.HasPrefix(strings.TrimSpace(v.json), "{") {
			flattenAttrs(s, k, gjson.Parse(v.json), 1)
		}
	}
	kind := strings.ToUpper(strings.TrimSpace(s.attr("openinference.span.kind")))
	top := strings.ToUpper(strings.TrimSpace(s.r.Get("span_kind").String()))
	if top == "INTERNAL" || top == "SERVER" || top == "CLIENT" || top == "PRODUCER" || top == "CONSUMER" || strings.HasPrefix(top, "SPAN_KIND") {
		top = "" // an OpenTelemetry span kind, not OpenInference's
	}
	switch {
	case kind == "":
		kind = top
	case top != "" && top != kind:
		// Phoenix's span_kind and the attribute say two things: a tool
		// call or not cannot be told.
		s.setConflict("openinference.span.kind and span_kind")
	}
	if kind == "" {
		return
	}
	if s.op != "" && (kind == "TOOL") != (s.op == "execute_tool") {
		s.setConflict("gen_ai.operation.name and openinference.span.kind")
	}
	if kind == "TOOL" {
		oiDisagree(s)
	}
	if !s.r.Get("status").Exists() {
		if c := s.r.Get("status_code"); c.Exists() {
			s.status, s.statusKnown = otelStatus(c)
		}
	}
	if s.op != "" {
		return // the span says its GenAI operation itself
	}
	if kind != "TOOL" {
		s.op = "openinference." + strings.ToLower(kind)
		return
	}
	s.op = "execute_tool"
	alias := func(to string, from ...string) {
		if _, ok := s.attrs[to]; ok {
			return
		}
		for _, f := range from {
			if v, ok := s.attrs[f]; ok {
				s.attrs[to] = v
				return
			}
		}
	}
	alias("gen_ai.tool.name", "tool.name")
	if _, ok := s.attrs["gen_ai.tool.name"]; !ok && strings.TrimSpace(s.name) != "" {
		s.attrs["gen_ai.tool.name"] = otelValue{text: s.name, json: jsonString(s.name)}
	}
	alias("gen_ai.tool.call.id", "tool_call.id")
	alias("gen_ai.tool.call.result", "output.value")
	if _, ok := s.attrs["gen_ai.tool.call.arguments"]; !ok {
		for _, f := range []string{"input.value", "tool_call.function.arguments"} {
			v, ok := s.attrs[f]
			if !ok {
				continue
			}
			if t := strings.TrimSpace(v.text); !validJSONString(t) || !gjson.Parse(t).IsObject() {
				wrapped := object("input", v.text)
				v = otelValue{text: wrapped, json: wrapped}
			}
			s.attrs["gen_ai.tool.call.arguments"] = v
			break
		}
	}
	if _, ok := s.attrs[convAttr]; !ok {
		if v, ok := s.attrs["session.id"]; ok && strings.TrimSpace(v.text) != "" {
			s.attrs[convAttr] = v
		}
	}
}

// oiDisagree marks a TOOL span whose GenAI and OpenInference attributes
// both say what the call was, differently (the tool, its id, its
// arguments, its result): two readings of one call, so neither is taken
// (the span is a problem of its input, otel.go). The same JSON in another
// layout or key order is one reading.
func oiDisagree(s *otelSpan) {
	pairs := []struct {
		genAI string
		oi    []string
		args  bool
	}{
		{"gen_ai.tool.name", []string{"tool.name"}, false},
		{"gen_ai.tool.call.id", []string{"tool_call.id"}, false},
		{"gen_ai.tool.call.arguments", []string{"input.value", "tool_call.function.arguments"}, true},
		{"gen_ai.tool.call.result", []string{"output.value"}, false},
	}
	for _, p := range pairs {
		var first, firstName string
		for _, name := range append([]string{p.genAI}, p.oi...) {
			v, ok := s.attrs[name]
			if !ok {
				continue
			}
			c := oiCanonical(v.text, p.args)
			if firstName == "" {
				first, firstName = c, name
				continue
			}
			if c != first {
				s.setConflict(firstName + " and " + name)
				return
			}
		}
	}
}

// oiCanonical is a value's JSON without layout or key order (its trimmed
// text when it is not JSON); as arguments, text that is not a JSON object
// is {"input": text}, as the reader takes it.
func oiCanonical(text string, args bool) string {
	t := strings.TrimSpace(text)
	if args && (!validJSONString(t) || !gjson.Parse(t).IsObject()) {
		t = object("input", text)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber() // 2^53+1 and 2^53 are two readings
	if !validJSONString(t) || dec.Decode(&v) != nil {
		return t
	}
	b, err := json.Marshal(v)
	if err != nil {
		return t
	}
	return string(b)
}

// setConflict records the span's first two readings (otel.go makes a
// span with a conflict a problem, not evidence).
func (s *otelSpan) setConflict(what string) {
	if s.conflict == "" {
		s.conflict = what
	}
}

// flattenAttrs adds a nested attribute object's members under dotted
// names. A name the span also gives flat with another value has two
// readings (an adversarial review: the flat input.value won silently over
// the nested one, and the delivery it named was not seen): a conflict.
func flattenAttrs(s *otelSpan, prefix string, v gjson.Result, depth int) {
	if depth > 4 {
		return
	}
	v.ForEach(func(k, m gjson.Result) bool {
		name := prefix + "." + k.String()
		if m.IsObject() && name != "input.value" && name != "output.value" {
			flattenAttrs(s, name, m, depth+1)
			return true
		}
		val := otelValue{text: m.Raw, json: m.Raw}
		if m.Type == gjson.String {
			val.text = m.Str
		}
		if old, ok := s.attrs[name]; ok {
			if old.text != val.text {
				s.setConflict(name + " given flat and nested")
			}
			return true
		}
		s.attrs[name] = val
		return true
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
