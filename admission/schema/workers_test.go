package schema_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
)

func newSetAndPods(t testing.TB) (*schema.Set, *api.Resource, api.Object, api.Object) {
	reg := api.NewRegistry(api.Builtin()...)
	s, err := schema.NewBuiltin(reg.All())
	if err != nil {
		t.Fatal(err)
	}
	res, ok := reg.Lookup("", "v1", "pods")
	if !ok {
		t.Fatal("no pods resource")
	}
	good := api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox", "command": []any{"sleep", "1"},
			"ports": []any{map[string]any{"containerPort": 8080}}, "env": []any{map[string]any{"name": "A", "value": "b"}}}}}}
	bad := api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox", "ports": []any{map[string]any{"containerPort": 70000}}}}}}
	return s, res, good, bad
}

// TestValidateWorkers: validation answers the same on the workers as on the
// caller's goroutine, before, during and after RunWorkers, and RunWorkers
// returns once its context ends.
func TestValidateWorkers(t *testing.T) {
	s, res, good, bad := newSetAndPods(t)
	v := s.Validate()
	check := func(when string) {
		t.Helper()
		if err := v.Validate(t.Context(), &admission.Attributes{Operation: admission.Create, Resource: res, Object: good}); err != nil {
			t.Errorf("%s: a valid pod: %v", when, err)
		}
		err := v.Validate(t.Context(), &admission.Attributes{Operation: admission.Create, Resource: res, Object: bad})
		if e, ok := admission.AsError(err); !ok || e.Kind != admission.KindInvalid {
			t.Errorf("%s: containerPort 70000: %v, want Invalid", when, err)
		}
	}
	check("before the workers")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { s.RunWorkers(ctx); close(done) }()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				check("with the workers")
			}
		})
	}
	wg.Wait()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunWorkers did not return after its context ended")
	}
	check("after the workers")
}

// BenchmarkValidateFreshGoroutine validates a pod on a new goroutine per
// operation, as an HTTP/2 handler does, on the caller's goroutine (inline)
// and on the Set's workers.
func BenchmarkValidateFreshGoroutine(b *testing.B) {
	for _, workers := range []bool{false, true} {
		name := "inline"
		if workers {
			name = "workers"
		}
		b.Run(name, func(b *testing.B) {
			s, res, good, _ := newSetAndPods(b)
			if workers {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { s.RunWorkers(ctx); close(done) }()
				defer func() { cancel(); <-done }()
				runtime.Gosched()
			}
			v := s.Validate()
			a := &admission.Attributes{Operation: admission.Create, Resource: res, Object: good}
			b.ReportAllocs()
			for b.Loop() {
				errc := make(chan error, 1)
				go func() { errc <- v.Validate(context.Background(), a) }()
				if err := <-errc; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
