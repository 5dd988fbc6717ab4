package garbagecollector

import (
	"strconv"
	"strings"
	"sync"

	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
)

// node locates one object the collector has seen.
type node struct {
	res int    // index into GC.resources
	key string // informer key
}

// item encodes a queue key: "<resource index>|<informer key>".
func (n node) item() string { return strconv.Itoa(n.res) + "|" + n.key }

func parseItem(s string) (node, bool) {
	i, rest, ok := strings.Cut(s, "|")
	if !ok {
		return node{}, false
	}
	res, err := strconv.Atoi(i)
	return node{res: res, key: rest}, err == nil
}

// uidIndex maps UIDs to the objects carrying them. Safe for concurrent use.
type uidIndex struct {
	mu sync.RWMutex
	m  map[string]node
}

func (x *uidIndex) put(uid string, n node) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.m[uid] = n
}

func (x *uidIndex) remove(uid string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.m, uid)
}

func (x *uidIndex) get(uid string) (node, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.m[uid]
	return n, ok
}

// dependents returns the objects of every covered resource that name uid
// as an owner.
func (g *GC) dependents(uid string) []dependent {
	var out []dependent
	for i, inf := range g.infs {
		for _, o := range inf.Store().ByIndex(informer.IndexOwner, uid) {
			out = append(out, dependent{node: node{res: i, key: informer.Key(o)}, obj: o})
		}
	}
	return out
}

type dependent struct {
	node
	obj api.Object
}
