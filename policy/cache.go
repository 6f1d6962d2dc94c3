package policy

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
)

// Compiled engines, kept by what they were compiled from.
//
// An Engine is immutable once compiled and safe for concurrent use, so the
// same configuration need not be compiled twice in one process: a server
// answering many checks, or a test suite running the CLI hundreds of times
// (compiling the built-in rules takes tens of milliseconds, evaluating a
// small history far less). The key is the modules' names, origins and
// sources and the data's JSON; a compile error is not kept.

const maxCachedEngines = 32

var engineCache = struct {
	sync.Mutex
	m map[[32]byte]*Engine
}{m: map[[32]byte]*Engine{}}

// CompileCached is Compile, memoized per configuration for the process.
func CompileCached(ctx context.Context, cfg Config) (*Engine, error) {
	key, err := configKey(cfg)
	if err != nil {
		return Compile(ctx, cfg)
	}
	engineCache.Lock()
	e := engineCache.m[key]
	engineCache.Unlock()
	if e != nil {
		return e, nil
	}
	e, err = Compile(ctx, cfg)
	if err != nil {
		return nil, err
	}
	engineCache.Lock()
	if len(engineCache.m) >= maxCachedEngines {
		clear(engineCache.m) // rare: many configurations; start again
	}
	engineCache.m[key] = e
	engineCache.Unlock()
	return e, nil
}

func configKey(cfg Config) ([32]byte, error) {
	h := sha256.New()
	for _, group := range [][]Module{cfg.Builtin, cfg.User} {
		fmt.Fprintf(h, "%d\x00", len(group))
		for _, m := range group {
			fmt.Fprintf(h, "%d:%s\x00%d:%s\x00%d:%s\x00", len(m.Name), m.Name, len(m.From), m.From, len(m.Source), m.Source)
		}
	}
	data, err := json.Marshal(cfg.Data) // maps marshal with sorted keys
	if err != nil {
		return [32]byte{}, err
	}
	h.Write(data)
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k, nil
}
