package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"sync"
)

type jsonRenderer struct{}

// Analyze writes the report as encoding/json's indented encoder would, but
// one key scope at a time: a month of history is hundreds of megabytes of
// JSON, which need not be in memory at once.
func (jsonRenderer) Analyze(w io.Writer, r *Report) error {
	if r.Tool == nil {
		cp := *r
		cp.Tool = CurrentTool()
		r = &cp
	}
	// Long transcript text is cut to excerpts (cutLongStrings) piece by
	// piece: the head, then each key scope, never the whole report at once.
	keys := r.Keys
	if keys == nil {
		cut, err := cutLongStrings(r, json.Marshal, json.Unmarshal)
		if err != nil {
			return err
		}
		return writeJSON(w, cut)
	}
	head := *r
	head.Keys = nil
	cutHead, err := cutLongStrings(&head, json.Marshal, json.Unmarshal)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, cutHead); err != nil {
		return err
	}
	const hole = "\n  \"keys\": null,\n"
	before, after, found := bytes.Cut(buf.Bytes(), []byte(hole))
	if !found {
		return writeJSON(w, cutHead)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(before)
	if len(keys) == 0 {
		bw.WriteString("\n  \"keys\": [],\n")
	} else {
		bw.WriteString("\n  \"keys\": [\n    ")
		err := encodeEach(len(keys), func(i int) ([]byte, error) {
			k, err := cutLongStrings(&keys[i], json.Marshal, json.Unmarshal)
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(k)
			if err != nil {
				return nil, err
			}
			return escapeJSONControls(indent(make([]byte, 0, len(b)*2), b, "    ", "  ")), nil
		}, func(i int, b []byte) {
			if i > 0 {
				bw.WriteString(",\n    ")
			}
			bw.Write(b)
		})
		if err != nil {
			return err
		}
		bw.WriteString("\n  ],\n")
	}
	bw.Write(after)
	return bw.Flush()
}

// encodeEach encodes items 0..n-1 on every processor and writes them in
// order, holding at most a window of encoded items at once: the key
// scopes of a month of history are encoded in parallel, without the whole
// report in memory (issue 15: rendering was the last serial part of a
// large analyze). The first error stops it.
func encodeEach(n int, encode func(int) ([]byte, error), write func(int, []byte)) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			b, err := encode(i)
			if err != nil {
				return err
			}
			write(i, b)
		}
		return nil
	}
	type result struct {
		b   []byte
		err error
	}
	const window = 64
	slots := make([]chan result, n)
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	next := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b, err := encode(i)
				slots[i] <- result{b, err}
			}
		}()
	}
	// Feed indices at most a window ahead of the writer.
	ahead := make(chan struct{}, window)
	go func() {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	var err error
	for i := 0; i < n; i++ {
		r := <-slots[i]
		<-ahead
		if r.err != nil {
			err = r.err
			break
		}
		write(i, r.b)
	}
	close(stop)
	wg.Wait()
	return err
}

func (jsonRenderer) Check(w io.Writer, c *CheckReport) error {
	if c.Tool == nil {
		cp := *c
		cp.Tool = CurrentTool()
		c = &cp
	}
	cut, err := cutLongStrings(c, json.Marshal, json.Unmarshal)
	if err != nil {
		return err
	}
	return writeJSON(w, cut)
}

func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONControls(b.Bytes()))
	return err
}

// Excerpted returns v (a report or an answer, by pointer) as the JSON
// report would show it: strings longer than MaxText cut to excerpts, so
// that a surface that encodes v itself (the MCP server's structured
// results) echoes no more of a hostile transcript than the JSON report.
// It returns v itself when no string is that long.
func Excerpted[T any](v *T) (*T, error) {
	return cutLongStrings(v, json.Marshal, json.Unmarshal)
}
