package replicaset

import (
	"sync"
	"time"
)

// Expectations remembers, per controller key, the creations and deletions a
// controller has asked for and not yet seen in its cache, so that it does not
// act twice on a lagging cache. Entries expire after a TTL so a lost event
// cannot wedge a controller. Safe for concurrent use.
type Expectations struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[string]*expectation
}

type expectation struct {
	adds    int
	deletes map[string]struct{} // pod keys
	at      time.Time
}

// NewExpectations returns Expectations that expire after ttl.
func NewExpectations(ttl time.Duration) *Expectations {
	return &Expectations{ttl: ttl, now: time.Now, m: map[string]*expectation{}}
}

// Expect records adds creations and the deletion of the given pod keys.
func (e *Expectations) Expect(key string, adds int, deletes []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := &expectation{adds: adds, deletes: map[string]struct{}{}, at: e.now()}
	for _, d := range deletes {
		x.deletes[d] = struct{}{}
	}
	e.m[key] = x
}

// CreationObserved lowers the expected creations of key by one.
func (e *Expectations) CreationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.m[key]; x != nil && x.adds > 0 {
		x.adds--
	}
}

// DeletionObserved marks the deletion of pod as seen.
func (e *Expectations) DeletionObserved(key, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.m[key]; x != nil {
		delete(x.deletes, pod)
	}
}

// Satisfied reports whether key has nothing outstanding (or its
// expectations have expired).
func (e *Expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.m[key]
	return x == nil || x.adds <= 0 && len(x.deletes) == 0 || e.now().Sub(x.at) > e.ttl
}

// Delete forgets key.
func (e *Expectations) Delete(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}
