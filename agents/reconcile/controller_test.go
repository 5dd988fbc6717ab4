package reconcile

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/workqueue"
)

func TestControllerResults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		results  []error // per attempt; nil success
		requeue  Result
		wantRuns int
	}{
		{"success runs once", []error{nil}, Result{}, 1},
		{"error retries until success", []error{errors.New("x"), errors.New("y"), nil}, Result{}, 3},
		{"terminal error is not retried", []error{TerminalError(errors.New("no"))}, Result{}, 1},
		{"panic is retried", []error{errPanic, nil}, Result{}, 2},
		{"requeue after", []error{nil, nil}, Result{RequeueAfter: 10 * time.Millisecond}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			runs := 0
			done := make(chan struct{})
			r := Func(func(ctx context.Context, req Request) (Result, error) {
				mu.Lock()
				defer mu.Unlock()
				if req.Namespace != "ns" || req.Name != "a" {
					t.Errorf("request = %+v", req)
				}
				runs++
				if runs == tc.wantRuns {
					close(done)
				}
				if runs > tc.wantRuns {
					t.Errorf("ran %d times, want %d", runs, tc.wantRuns)
					return Result{}, nil
				}
				err := tc.results[runs-1]
				if err == errPanic {
					panic("boom")
				}
				if runs < tc.wantRuns {
					return tc.requeue, err
				}
				return Result{}, err
			})
			c := New("test", r, Options{RateLimiter: workqueue.NewItemBackoff(time.Millisecond, 10*time.Millisecond)})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- c.Run(ctx, 2) }()
			c.Enqueue(Request{Namespace: "ns", Name: "a"})
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("not enough runs")
			}
			cancel()
			select {
			case <-errc:
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return")
			}
		})
	}
}

var errPanic = errors.New("panic")

func TestTerminalError(t *testing.T) {
	base := errors.New("base")
	err := TerminalError(base)
	if !IsTerminal(err) || !errors.Is(err, base) || IsTerminal(base) || TerminalError(nil) != nil {
		t.Fatal("TerminalError wrapping is wrong")
	}
}
