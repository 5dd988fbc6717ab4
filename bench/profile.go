package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// profileServer starts a CPU profile and an allocation profile of the server
// (through its /debug/pprof endpoints) and returns a function that stops them
// and writes them to dir/<verb>.pprof and dir/<verb>.allocs.pprof. With no
// dir it does nothing.
func profileServer(ctx context.Context, c *apiClient, dir, verb string, d time.Duration) func() {
	if dir == "" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	name := strings.Fields(verb)[0]
	secs := strconv.Itoa(max(int(d.Seconds()), 1))
	for path, file := range map[string]string{
		"/debug/pprof/profile?seconds=" + secs: name + ".pprof",
		"/debug/pprof/allocs?seconds=" + secs:  name + ".allocs.pprof",
	} {
		wg.Go(func() {
			b, err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK)
			if err != nil {
				fmt.Fprintf(os.Stderr, "bench: profiling %s: %v\n", verb, err)
				return
			}
			if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			}
		})
	}
	return func() {
		wg.Wait()
		cancel()
	}
}
