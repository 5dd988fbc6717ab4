package main

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
)

// TestInTurns: each side runs every operation number once, in alternating
// slices, and its slices add up to one Load with every latency and error.
func TestInTurns(t *testing.T) {
	var mu sync.Mutex
	var order []string
	seen := map[string]map[int]int{"a": {}, "b": {}}
	op := func(side string) opFunc {
		return func(_ context.Context, i int) error {
			mu.Lock()
			defer mu.Unlock()
			seen[side][i]++
			if len(order) == 0 || order[len(order)-1] != side {
				order = append(order, side)
			}
			if side == "b" && i%10 == 0 {
				return errors.New("boom")
			}
			return nil
		}
	}
	mt := meter{pid: os.Getpid(), conc: 3}
	a, b := mt.inTurns(context.Background(), 100, 4, op("a"), op("b"))
	for side, m := range seen {
		for i := range 100 {
			if m[i] != 1 {
				t.Fatalf("%s ran operation %d %d times", side, i, m[i])
			}
		}
	}
	if got := len(order); got != 8 {
		t.Errorf("sides took %d turns (%v), want 8", got, order)
	}
	if a.load.Ops != 100 || a.load.OK != 100 || len(a.load.lat) != 100 {
		t.Errorf("a: %d ops, %d ok, %d latencies", a.load.Ops, a.load.OK, len(a.load.lat))
	}
	if b.load.Ops != 100 || b.load.OK != 90 || b.load.Errors["boom"] != 10 {
		t.Errorf("b: %d ops, %d ok, errors %v", b.load.Ops, b.load.OK, b.load.Errors)
	}
	if a.load.Elapsed <= 0 || a.summary("a", 0).PerSec <= 0 {
		t.Errorf("a: elapsed %v", a.load.Elapsed)
	}
}
