// Package informer keeps a local, indexed cache of one resource in step with
// the hub and tells handlers what changed.
//
// An Informer lists the resource (in pages), then watches from the list's
// resourceVersion with bookmarks. After a disconnect it resumes from the last
// resourceVersion it saw; on 410 Gone it lists again and reconciles the cache
// against the new list (adds, updates and deletes are all delivered). Failed
// requests are retried with exponential backoff and jitter. Every ResyncPeriod
// each cached object is delivered again as an update, so level-triggered
// controllers re-check what they own.
//
// Objects handed out by the Store and to handlers are shared: treat them as
// read-only and DeepCopy before changing them. The Store is safe for concurrent
// use. Handlers run on the Informer's goroutine, in event order, and must be
// quick (typically: enqueue a key).
package informer
