package authcache

import (
	"sync"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/auth/authn"
	"github.com/capstan-io/capstan/storage"
)

// UIDs remembers the uid of every object of one resource, for checking that
// a bound token's service account or pod still exists.
type UIDs struct {
	mu      sync.RWMutex
	entries map[string]uidEntry // by namespace/name
}

type uidEntry struct {
	uid  string
	rev  int64
	gone bool // deleted: kept so an older observation cannot bring it back
}

// NewUIDs returns an empty table.
func NewUIDs() *UIDs { return &UIDs{entries: map[string]uidEntry{}} }

// Lookup returns the uid of namespace/name if it exists.
func (u *UIDs) Lookup(namespace, name string) (string, bool) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	e, ok := u.entries[namespace+"/"+name]
	return e.uid, ok && !e.gone
}

// Observe records what a request of this server read (say, a TokenRequest),
// unless the table already knows a newer revision.
func (u *UIDs) Observe(namespace, name, uid string, rev int64) {
	u.set(namespace+"/"+name, uidEntry{uid: uid, rev: rev})
}

func (u *UIDs) set(key string, e uidEntry) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if cur, ok := u.entries[key]; ok && cur.rev > e.rev {
		return
	}
	u.entries[key] = e
}

// Replace implements broadcast.Sink.
func (u *UIDs) Replace(items []storage.KeyValue, _ int64) {
	m := make(map[string]uidEntry, len(items))
	for _, kv := range items {
		if o, err := api.Decode(kv.Value); err == nil {
			m[o.Namespace()+"/"+o.Name()] = uidEntry{uid: o.UID(), rev: kv.ModRevision}
		}
	}
	u.mu.Lock()
	u.entries = m
	u.mu.Unlock()
}

// Put implements broadcast.Sink.
func (u *UIDs) Put(b []byte, rev int64) {
	if o, err := api.Decode(b); err == nil {
		u.set(o.Namespace()+"/"+o.Name(), uidEntry{uid: o.UID(), rev: rev})
	}
}

// Delete implements broadcast.Sink.
func (u *UIDs) Delete(b []byte, rev int64) {
	if o, err := api.Decode(b); err == nil {
		u.set(o.Namespace()+"/"+o.Name(), uidEntry{rev: rev, gone: true})
	}
}

// Unsynced implements broadcast.Sink.
func (u *UIDs) Unsynced() {}

var _ broadcast.Sink = (*UIDs)(nil)

// Objects answers authn's bound-token checks from two UID tables.
type Objects struct {
	ServiceAccounts, Pods *UIDs
}

var _ authn.ObjectUIDs = Objects{}

// ServiceAccountUID implements authn.ObjectUIDs.
func (o Objects) ServiceAccountUID(namespace, name string) (string, bool) {
	return o.ServiceAccounts.Lookup(namespace, name)
}

// PodUID implements authn.ObjectUIDs.
func (o Objects) PodUID(namespace, name string) (string, bool) { return o.Pods.Lookup(namespace, name) }
