package broadcast

import (
	"context"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/storage"
)

// Sink receives the objects of one prefix from a Follower, as stored JSON
// (without resourceVersion spliced in for listed items) and revisions.
type Sink interface {
	// Replace starts over with a complete list taken at revision rev.
	Replace(items []storage.KeyValue, rev int64)
	// Put records an object created or changed at rev.
	Put(json []byte, rev int64)
	// Delete records the deletion, at rev, of an object whose last state was json.
	Delete(json []byte, rev int64)
	// Unsynced says the watch ended: the sink may miss changes until the next Replace.
	Unsynced()
}

// Follower keeps a Sink current with one prefix: a list, then the hub's
// events from the list's revision, re-listing whenever the watch ends. It is
// how in-process caches stay current without reading storage per request.
type Follower struct {
	store  storage.Reader
	hub    *Hub
	prefix string
	sink   Sink
	log    *slog.Logger

	syncedc chan struct{} // closed after the first Replace
}

// NewFollower returns a follower of prefix, whose events hub fans out.
func NewFollower(store storage.Reader, hub *Hub, prefix string, sink Sink, log *slog.Logger) *Follower {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Follower{store: store, hub: hub, prefix: prefix, sink: sink, log: log, syncedc: make(chan struct{})}
}

// Synced is closed once the sink has had its first complete list.
func (f *Follower) Synced() <-chan struct{} { return f.syncedc }

// Run keeps the sink current until ctx ends.
func (f *Follower) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := f.sync(ctx); err != nil && ctx.Err() == nil {
			f.log.Warn("cache re-listing", "prefix", f.prefix, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

func (f *Follower) sync(ctx context.Context) error {
	res, err := f.store.List(ctx, f.prefix, storage.ListOptions{})
	if err != nil {
		return err
	}
	f.sink.Replace(res.Items, res.Revision)
	select {
	case <-f.syncedc:
	default:
		close(f.syncedc)
	}
	sub := f.hub.Subscribe(ctx, res.Revision)
	defer sub.Stop()
	defer f.sink.Unsynced()
	for ev := range sub.C() {
		obj, _, err := ev.Objects()
		switch {
		case err != nil || obj == nil: // the hub logged it
		case ev.Type == storage.EventDelete:
			f.sink.Delete(obj.JSON, ev.Rev)
		default:
			f.sink.Put(obj.JSON, ev.Rev)
		}
	}
	return sub.Err()
}
