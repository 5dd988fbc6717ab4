package reconcile

import (
	"context"
	"errors"
	"time"

	"github.com/capstan-io/capstan/agents/informer"
)

// Request names the object to reconcile.
type Request struct {
	Namespace, Name string
}

// String is the request's key, namespace/name.
func (r Request) String() string { return informer.KeyOf(r.Namespace, r.Name) }

// RequestFromKey splits a namespace/name key.
func RequestFromKey(key string) Request {
	ns, n := informer.SplitKey(key)
	return Request{Namespace: ns, Name: n}
}

// Result says whether and when to reconcile the request again.
type Result struct {
	// Requeue asks for another attempt with the queue's backoff.
	Requeue bool
	// RequeueAfter asks for another attempt after this long; it wins over Requeue.
	RequeueAfter time.Duration
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return !r.Requeue && r.RequeueAfter == 0 }

// Reconciler makes one object's world match its desired state.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// Func adapts a function to a Reconciler.
type Func func(ctx context.Context, req Request) (Result, error)

var _ Reconciler = Func(nil)

// Reconcile implements Reconciler.
func (f Func) Reconcile(ctx context.Context, req Request) (Result, error) { return f(ctx, req) }

// terminalError marks an error that retrying cannot fix.
type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal error: " + e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }

// TerminalError wraps err so the Controller logs it and does not retry.
func TerminalError(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

// IsTerminal reports whether err was wrapped by TerminalError.
func IsTerminal(err error) bool {
	var te *terminalError
	return errors.As(err, &te)
}
