// Command benchtool does the parts of scripts/bench.sh that are not
// effectlint itself:
//
//	benchtool scan DIR              the bare gjson scan (bench.GJSONScan)
//	benchtool array DIR OUT         the native events of DIR as one JSON array, for opa eval
//	benchtool agree OPA EFFECTLINT  do opa eval's key states equal analyze --format json's?
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/effectlint/effectlint/internal/bench"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 2 && args[0] == "scan":
		files, size, err := bench.Files(args[1])
		if err != nil {
			return err
		}
		fields, _, err := bench.GJSONScan(files)
		if err != nil {
			return err
		}
		fmt.Printf("scanned %d files, %d bytes, %d fields\n", len(files), size, fields)
		return nil
	case len(args) == 3 && args[0] == "array":
		return array(args[1], args[2])
	case len(args) == 3 && args[0] == "agree":
		return agree(args[1], args[2])
	}
	return fmt.Errorf("usage: benchtool scan DIR | array DIR OUT | agree OPA.json EFFECTLINT.json")
}

func array(dir, out string) error {
	files, _, err := bench.Files(dir)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("[")
	first := true
	for _, p := range files {
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if len(sc.Bytes()) == 0 {
				continue
			}
			if !first {
				w.WriteString(",\n")
			}
			first = false
			w.Write(sc.Bytes())
		}
		in.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	w.WriteString("]\n")
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// agree compares opa eval's {"result":[{"expressions":[{"value":{key:state}}]}]}
// with the key states of an analyze --format json report.
func agree(opaPath, effPath string) error {
	var o struct {
		Result []struct {
			Expressions []struct {
				Value map[string]string `json:"value"`
			} `json:"expressions"`
		} `json:"result"`
	}
	var e struct {
		Keys []struct {
			Key, Scope, State string
		} `json:"keys"`
	}
	for _, x := range []struct {
		path string
		v    any
	}{{opaPath, &o}, {effPath, &e}} {
		b, err := os.ReadFile(x.path)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, x.v); err != nil {
			return fmt.Errorf("%s: %v", x.path, err)
		}
	}
	if len(o.Result) != 1 || len(o.Result[0].Expressions) != 1 {
		return fmt.Errorf("%s: not one result", opaPath)
	}
	opa := o.Result[0].Expressions[0].Value
	differ := 0
	for _, k := range e.Keys {
		if k.Scope != "original" {
			continue
		}
		if opa[k.Key] != k.State {
			if differ < 5 {
				fmt.Printf("  %s: opa %q, effectlint %q\n", k.Key, opa[k.Key], k.State)
			}
			differ++
		}
	}
	fmt.Printf("%d key states, %d differ\n", len(e.Keys), differ)
	if differ > 0 || len(opa) != len(e.Keys) {
		return fmt.Errorf("opa eval gave %d keys, effectlint %d, %d states differ", len(opa), len(e.Keys), differ)
	}
	return nil
}
