package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// opFunc performs operation i of a load run.
type opFunc func(ctx context.Context, i int) error

// Load is the outcome of one measured operation run.
type Load struct {
	Ops     int            // operations attempted
	OK      int            // operations that succeeded
	Errors  map[string]int // failures by kind, e.g. "HTTP 409"
	Elapsed time.Duration
	lat     []time.Duration // latencies of successful operations, sorted
}

// PerSec is successful operations per second.
func (l *Load) PerSec() float64 {
	if l.Elapsed <= 0 {
		return 0
	}
	return float64(l.OK) / l.Elapsed.Seconds()
}

// Quantile is the q-quantile of successful operations' latency.
func (l *Load) Quantile(q float64) time.Duration { return quantile(l.lat, q) }

// runOps runs ops 0..n-1 on conc workers and times each. It stops early when ctx ends.
func runOps(ctx context.Context, n, conc int, op opFunc) *Load {
	var (
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
	)
	res := &Load{Errors: map[string]int{}}
	start := time.Now()
	for range min(conc, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, n/conc+1)
			errs := map[string]int{}
			ops := 0
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					break
				}
				ops++
				t := time.Now()
				if err := op(ctx, i); err != nil {
					errs[errorKind(err)]++
					continue
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			defer mu.Unlock()
			res.Ops += ops
			res.lat = append(res.lat, lat...)
			for k, v := range errs {
				res.Errors[k] += v
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.OK = len(res.lat)
	slices.Sort(res.lat)
	return res
}

// statusError is a response with an unexpected HTTP status.
type statusError struct {
	Code int
	Body string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body) }

// errorKind buckets an error for the report: HTTP status codes exactly, others by text.
func errorKind(err error) string {
	var se *statusError
	if errors.As(err, &se) {
		return fmt.Sprintf("HTTP %d", se.Code)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "canceled"
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// formatErrors renders an error histogram as "HTTP 409×3, canceled×1".
func formatErrors(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// quantile of sorted durations, nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
