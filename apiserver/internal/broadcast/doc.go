// Package broadcast fans one etcd watch per resource out to every client
// watching that resource in this process.
//
// A Hub keeps a bounded window of recent events, each decoded and encoded once,
// so a watcher that resumes from a recent resourceVersion is served from memory.
// A watcher asking for a revision older than the window gets a private storage
// watch instead, which reports compaction as storage.ErrCompacted.
//
// Slow watchers never hold up the hub: each has a bounded queue, and a watcher
// whose queue is full is dropped (its channel closed). Its client resumes from
// the last event it received, which the window or the storage watch still has.
// Hub and Sub are safe for concurrent use.
package broadcast
