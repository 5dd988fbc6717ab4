package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// profileServer starts a CPU profile of the server (through its /debug/pprof
// endpoint) and returns a function that stops it and writes it to dir/<verb>.pprof.
// With no dir it does nothing.
func profileServer(ctx context.Context, c *apiClient, dir, verb string) func() {
	if dir == "" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A 3 s profile covers the start of the verb's run (or all of it).
		b, err := c.do(ctx, http.MethodGet, "/debug/pprof/profile?seconds=3", nil, http.StatusOK)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: profiling %s: %v\n", verb, err)
			return
		}
		name := strings.Fields(verb)[0] + ".pprof"
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		}
	}()
	return func() {
		wg.Wait()
		cancel()
	}
}
