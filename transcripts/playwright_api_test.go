package transcripts

import (
	"strings"
	"testing"
)

// A dispatchEvent of a click on a send-shaped control is that click, and
// a request the test sends itself (APIRequestContext.fetch) that writes is
// request_sent: keyed by the multipart file's bytes and the URL when the
// trace holds them, tied to no key otherwise. A GET is no evidence.
func TestPlaywright_DispatchEventAndAPIRequests(t *testing.T) {
	send := `{"type":"before","callId":"c@3","startTime":1300,"class":"Frame","method":"dispatchEvent","params":{"selector":"internal:role=button[name=\"Send\"i]","type":"click","eventInit":{}}}`
	hover := `{"type":"before","callId":"c@4","startTime":1400,"class":"Frame","method":"dispatchEvent","params":{"selector":"internal:role=button[name=\"Send\"i]","type":"mouseover"}}`
	_, evs := readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": pwLines(pwCtx, pwPage, send, hover)})}, "t.zip")
	if got := pwTypes(evs); got != "task_started send_fired task_ended" {
		t.Errorf("dispatchEvent click, then mouseover: events %q", got)
	}
	if len(evs) == 3 && evs[1].Line != 3 {
		t.Errorf("send_fired at line %d, want 3", evs[1].Line)
	}
	fetch := func(params string) string {
		return `{"type":"before","callId":"c@5","startTime":1500,"class":"APIRequestContext","method":"fetch","params":` + params + `}`
	}
	multipart := fetch(`{"url":"https://api.example/upload#x","method":"POST","multipartData":[{"name":"file","file":{"name":"r.txt","mimeType":"text/plain","buffer":"aGk="}}]}`)
	network := pwLines(`{"type":"resource-snapshot","snapshot":{"_monotonicTime":1600,"time":20,"request":{"method":"POST","url":"https://api.example/upload"},"response":{"status":503}}}`)
	_, evs = readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": pwLines(pwCtx, multipart), "trace.network": network})}, "t.zip")
	if got := pwTypes(evs); got != "task_started intent request_sent response task_ended" {
		t.Fatalf("multipart POST: events %q", got)
	}
	dest, _ := evs[1].Fields["destination"].(map[string]any)
	content, _ := evs[1].Fields["content"].(map[string]any)
	if dest["provider"] != "web" || dest["id"] != "https://api.example/upload" ||
		content["sha256"] != "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4" {
		t.Errorf("intent destination %v content %v: want web / the URL, the sha256 of \"hi\"", dest, content)
	}
	if evs[2].Fields["intent"] != evs[1].Fields["intent"] || evs[2].Line != 2 {
		t.Errorf("request_sent %v at line %d, want the intent's, line 2", evs[2].Fields, evs[2].Line)
	}
	for _, params := range []string{
		`{"url":"https://api.example/items","method":"PUT","jsonData":"{\"a\":1}"}`,
		`{"url":"https://api.example/items","formData":[{"name":"a","value":"1"}]}`,
		`{"url":"https://api.example/upload","method":"POST","multipartData":[{"name":"file","file":{"name":"r.txt","buffer":"<Buffer>"}}]}`,
	} {
		_, evs = readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": pwLines(pwCtx, fetch(params))})}, "t.zip")
		if got := pwTypes(evs); got != "task_started request_sent task_ended" || !strings.HasPrefix(evs[1].Str("intent"), "unkeyed-") {
			t.Errorf("%s: events %q (%v), want an unkeyed request_sent", params, got, evs)
		}
	}
	_, evs = readPW(t, Options{}, map[string][]byte{"t.zip": pwZip(map[string]string{"trace.trace": pwLines(pwCtx, fetch(`{"url":"https://api.example/items","method":"GET"}`))})}, "t.zip")
	if got := pwTypes(evs); got != "task_started task_ended" {
		t.Errorf("GET: events %q", got)
	}
}
