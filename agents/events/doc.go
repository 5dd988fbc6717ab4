// Package events records core/v1 Events about objects, so `kubectl describe`
// and `kubectl get events` explain what an agent did.
//
// Recording never blocks the caller: events go into a bounded buffer that the
// Recorder's Run goroutine writes out, and when the buffer is full new events
// are dropped and counted (an agent must never stall on its own diagnostics).
// Like Kubernetes, the same (object, type, reason, message) seen again within
// the aggregation window updates count and lastTimestamp of the existing
// Event instead of creating another. A Recorder is safe for concurrent use.
package events
