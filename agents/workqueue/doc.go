// Package workqueue provides a deduplicating, rate-limited queue of string keys
// (namespace/name), with client-go's semantics:
//
//   - an item added several times before it is taken is processed once;
//   - an item being processed (between Get and Done) is never handed to a second
//     worker; if it is added again meanwhile it is queued again at Done;
//   - AddAfter delays an item, AddRateLimited delays it by the RateLimiter
//     (per-item exponential backoff, bounded by an overall token bucket), and
//     Forget resets its backoff.
//
// A Queue is safe for concurrent use. Its delaying goroutine is owned by the
// Queue and exits at ShutDown.
package workqueue
