package transcripts

import "time"

// ClassifyCall applies the tool conventions — the built-in ones and
// profile's — to one tool call, by the very code the readers run on a
// recorded call, and returns the events the call yields before its result
// is known: the intents it declares (destination and content, a content
// path as the call gives it, relative to tc.Cwd) and its crossings. No
// event: the call is no delivery. A hook asks this before the call runs,
// so it judges the call as a transcript will record it.
func ClassifyCall(profile *Profile, tc ToolCall) []Event {
	var out []Event
	rn := &run{opt: Options{Profile: profile}, emit: func(e Event) { out = append(out, e) },
		seen: map[string]bool{}, pending: map[string]*pendingCall{}, page: map[string]string{}, temporalOwn: map[string]bool{}}
	in := &Input{Path: "-", Format: FormatClaudeCode, Problems: []Problem{}}
	c := rn.conventions(in)
	if tc.TS.IsZero() {
		tc.TS = time.Now()
	}
	c.Call(tc)
	return out
}
