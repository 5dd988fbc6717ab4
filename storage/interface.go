package storage

import "context"

// KeyValue is one stored key at one revision.
type KeyValue struct {
	Key            string
	Value          []byte
	CreateRevision int64
	ModRevision    int64
}

// ListOptions narrows a List.
type ListOptions struct {
	// Revision reads the state at that revision; 0 means the latest.
	Revision int64
	// Limit caps the number of keys returned; 0 means no limit.
	Limit int64
	// Start, if set, is the first key to return (inclusive). It must lie under the prefix.
	Start string
}

// ListResult is a consistent snapshot of part of a prefix.
type ListResult struct {
	Items []KeyValue
	// Revision is the store revision the read was taken at.
	Revision int64
	// More reports whether keys remain after the last item.
	More bool
	// Remaining counts the keys after the last item, when More is set.
	Remaining int64
}

// EventType says what happened to a key.
type EventType int

const (
	// EventPut is a create or an update; Event.Prev is nil for a create.
	EventPut EventType = iota
	// EventDelete is a delete; Event.Prev holds the last value.
	EventDelete
	// EventProgress carries no key: all events up to Revision have been sent.
	EventProgress
)

// Event is one change seen by a watch.
type Event struct {
	Type     EventType
	KV       KeyValue
	Prev     *KeyValue
	Revision int64
}

// Reader reads keys.
type Reader interface {
	Get(ctx context.Context, key string) (KeyValue, error)
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
}

// Writer changes keys with optimistic concurrency.
type Writer interface {
	// Create stores key only if it does not exist, and returns the new revision.
	Create(ctx context.Context, key string, value []byte) (int64, error)
	// Update stores key only if its ModRevision is still rev.
	Update(ctx context.Context, key string, value []byte, rev int64) (int64, error)
	// Delete removes key only if its ModRevision is still rev (0: any), and returns the revision of the delete.
	Delete(ctx context.Context, key string, rev int64) (int64, error)
}

// Watcher streams changes under a prefix.
type Watcher interface {
	// Watch sends every event under prefix with a revision greater than rev, in order,
	// until ctx ends or the stream fails. The channel is closed at the end; a final
	// error, if any, is reported through errc.
	Watch(ctx context.Context, prefix string, rev int64) (events <-chan Event, errc <-chan error)
}

// Interface is the whole storage contract.
type Interface interface {
	Reader
	Writer
	Watcher
}
