package schema

import (
	"context"
	"runtime"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The jsonschema library validates by deep recursion. On a request's fresh
// goroutine (HTTP/2 starts one per stream, with a small stack) every
// validation grows the stack several times, copying it each time: that was
// about a tenth of the hub's CPU per create. Validating on a few long-lived
// goroutines, whose stacks stay grown, avoids the copies.

// validation is one job for the workers.
type validation struct {
	schema *jsonschema.Schema
	v      any
	done   chan error
}

// RunWorkers validates on runtime.GOMAXPROCS(0) long-lived goroutines until
// ctx ends, and returns when they have exited. While it runs, validations are
// handed to them; before and after, they run on the caller's goroutine.
func (s *Set) RunWorkers(ctx context.Context) {
	jobs := make(chan validation)
	s.mu.Lock()
	s.jobs = jobs
	s.mu.Unlock()
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-jobs:
					j.done <- j.schema.Validate(j.v)
				}
			}
		})
	}
	<-ctx.Done()
	s.mu.Lock()
	s.jobs = nil
	s.mu.Unlock()
	wg.Wait()
}

var donePool = sync.Pool{New: func() any { return make(chan error, 1) }}

// validateValue validates v against sch, on a worker when they run and one
// is free, else here.
func (s *Set) validateValue(sch *jsonschema.Schema, v any) error {
	s.mu.RLock()
	jobs := s.jobs
	s.mu.RUnlock()
	if jobs == nil {
		return sch.Validate(v)
	}
	done := donePool.Get().(chan error)
	select {
	case jobs <- validation{schema: sch, v: v, done: done}:
	default:
		donePool.Put(done)
		return sch.Validate(v) // every worker busy: do not queue behind them
	}
	err := <-done
	donePool.Put(done)
	return err
}
