package endpoints

import (
	"context"
	"log/slog"
	"sync"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/storage"
)

// NamespaceCache remembers which namespaces exist and which are terminating,
// fed by the namespaces watch, so admitting a create costs no etcd read. A
// namespace it does not know yet (created a moment ago) is looked up in etcd
// instead, so the cache can lag without refusing anything it should admit.
// It is safe for concurrent use.
type NamespaceCache struct {
	store storage.Reader
	hub   *broadcast.Hub
	log   *slog.Logger

	mu     sync.RWMutex
	states map[string]nsState // by namespace name; present means it exists
	synced bool
}

// nsState is what the cache knows of one namespace, and as of which revision.
type nsState struct {
	terminating bool
	gone        bool // deleted: kept so an older event cannot bring it back
	rev         int64
}

// NewNamespaceCache returns a cache fed from hub, the namespaces resource's hub.
func NewNamespaceCache(store storage.Reader, hub *broadcast.Hub, log *slog.Logger) *NamespaceCache {
	return &NamespaceCache{store: store, hub: hub, log: log, states: map[string]nsState{}}
}

// Lookup reports whether the cache knows ns, and if so whether it is terminating.
func (c *NamespaceCache) Lookup(ns string) (known, terminating bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	st, ok := c.states[ns]
	return ok && !st.gone && c.synced, st.terminating
}

// Observe records a namespace's state as of rev, unless the cache already knows a
// newer one. This server's own namespace writes call it, so its next request sees
// them without waiting for the watch; deleted marks the namespace gone.
func (c *NamespaceCache) Observe(name string, terminating, deleted bool, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.states[name]; ok && cur.rev > rev {
		return
	}
	c.states[name] = nsState{terminating: terminating, gone: deleted, rev: rev}
}

// Run keeps the cache current until ctx ends, re-listing whenever its watch ends.
func (c *NamespaceCache) Run(ctx context.Context) error {
	prefix := (&api.Resource{Version: "v1", Name: "namespaces"}).KeyPrefix()
	broadcast.NewFollower(c.store, c.hub, prefix, c, c.log).Run(ctx)
	return nil
}

var _ broadcast.Sink = (*NamespaceCache)(nil)

// Replace implements broadcast.Sink.
func (c *NamespaceCache) Replace(items []storage.KeyValue, _ int64) {
	m := make(map[string]nsState, len(items))
	for _, kv := range items {
		if o, err := api.Decode(kv.Value); err == nil {
			m[o.Name()] = nsState{terminating: o.DeletionTimestamp() != "", rev: kv.ModRevision}
		}
	}
	c.mu.Lock()
	c.states, c.synced = m, true
	c.mu.Unlock()
}

// Put implements broadcast.Sink.
func (c *NamespaceCache) Put(b []byte, rev int64) { c.observeJSON(b, false, rev) }

// Delete implements broadcast.Sink.
func (c *NamespaceCache) Delete(b []byte, rev int64) { c.observeJSON(b, true, rev) }

func (c *NamespaceCache) observeJSON(b []byte, deleted bool, rev int64) {
	if o, err := api.Decode(b); err == nil {
		c.Observe(o.Name(), o.DeletionTimestamp() != "", deleted, rev)
	}
}

// Unsynced implements broadcast.Sink: until the next list, lookups go to etcd.
func (c *NamespaceCache) Unsynced() {
	c.mu.Lock()
	c.synced = false
	c.mu.Unlock()
}
