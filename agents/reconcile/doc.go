// Package reconcile runs level-triggered reconcilers over a work queue, in the
// manner of controller-runtime and sample-controller.
//
// A Reconciler gets a Request (namespace/name) and makes the world match the
// desired state of that object, reading from informer caches. Its result says
// what happens next: a nil error with a zero Result forgets the key; Requeue or
// RequeueAfter schedules it again; an error retries with per-item backoff; a
// TerminalError is logged and not retried. A key is never reconciled by two
// workers at once. A Controller is safe for concurrent use; Run owns its
// workers and returns only after they have exited.
package reconcile
