package informer

import (
	"sort"
	"sync"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Built-in index names.
const (
	// IndexNamespace indexes objects by metadata.namespace.
	IndexNamespace = "namespace"
	// IndexNodeName indexes objects by spec.nodeName (pods); objects without one are not indexed.
	IndexNodeName = "nodeName"
	// IndexOwner indexes objects by the uid of each of their ownerReferences.
	IndexOwner = "owner"
)

// IndexFunc returns the index values of an object.
type IndexFunc func(o api.Object) []string

// DefaultIndexers are the indexes every Store has.
func DefaultIndexers() map[string]IndexFunc {
	return map[string]IndexFunc{
		IndexNamespace: func(o api.Object) []string { return []string{o.Namespace()} },
		IndexNodeName: func(o api.Object) []string {
			if n := api.NestedString(o, "spec", "nodeName"); n != "" {
				return []string{n}
			}
			return nil
		},
		IndexOwner: OwnerUIDs,
	}
}

// OwnerUIDs returns the uids in o's ownerReferences.
func OwnerUIDs(o api.Object) []string {
	var out []string
	for _, r := range api.NestedSlice(o, "metadata", "ownerReferences") {
		if m, ok := r.(map[string]any); ok {
			if uid, _ := m["uid"].(string); uid != "" {
				out = append(out, uid)
			}
		}
	}
	return out
}

// Key returns an object's cache key: namespace/name, or name for cluster-scoped objects.
func Key(o api.Object) string { return KeyOf(o.Namespace(), o.Name()) }

// KeyOf joins a namespace and name into a key.
func KeyOf(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey splits a key made by KeyOf.
func SplitKey(key string) (namespace, name string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// Store is a thread-safe map of objects by key with indexes.
type Store struct {
	mu       sync.RWMutex
	items    map[string]api.Object
	indexers map[string]IndexFunc
	indices  map[string]map[string]map[string]struct{} // index name → value → keys
}

// NewStore returns an empty Store with the default indexes plus extra.
func NewStore(extra map[string]IndexFunc) *Store {
	s := &Store{items: map[string]api.Object{}, indexers: DefaultIndexers(), indices: map[string]map[string]map[string]struct{}{}}
	for k, f := range extra {
		s.indexers[k] = f
	}
	for k := range s.indexers {
		s.indices[k] = map[string]map[string]struct{}{}
	}
	return s
}

// Get returns the object at key.
func (s *Store) Get(key string) (api.Object, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o, ok := s.items[key]
	return o, ok
}

// List returns every object, sorted by key.
func (s *Store) List() []api.Object {
	s.mu.RLock()
	keys := make([]string, 0, len(s.items))
	for k := range s.items {
		keys = append(keys, k)
	}
	s.mu.RUnlock()
	sort.Strings(keys)
	return s.byKeys(keys)
}

// Len is the number of objects.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// ByIndex returns the objects whose index name has value, sorted by key.
func (s *Store) ByIndex(name, value string) []api.Object {
	s.mu.RLock()
	set := s.indices[name][value]
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	s.mu.RUnlock()
	sort.Strings(keys)
	return s.byKeys(keys)
}

func (s *Store) byKeys(keys []string) []api.Object {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]api.Object, 0, len(keys))
	for _, k := range keys {
		if o, ok := s.items[k]; ok {
			out = append(out, o)
		}
	}
	return out
}

// put stores o and returns what it replaced.
func (s *Store) put(o api.Object) (old api.Object, existed bool) {
	k := Key(o)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed = s.items[k]
	if existed {
		s.unindex(k, old)
	}
	s.items[k] = o
	for name, f := range s.indexers {
		for _, v := range f(o) {
			set := s.indices[name][v]
			if set == nil {
				set = map[string]struct{}{}
				s.indices[name][v] = set
			}
			set[k] = struct{}{}
		}
	}
	return old, existed
}

// remove deletes key and returns what was there.
func (s *Store) remove(key string) (api.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.items[key]
	if ok {
		s.unindex(key, old)
		delete(s.items, key)
	}
	return old, ok
}

func (s *Store) unindex(k string, o api.Object) {
	for name, f := range s.indexers {
		for _, v := range f(o) {
			if set := s.indices[name][v]; set != nil {
				delete(set, k)
				if len(set) == 0 {
					delete(s.indices[name], v)
				}
			}
		}
	}
}

// keys returns a snapshot of all keys.
func (s *Store) keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.items))
	for k := range s.items {
		out = append(out, k)
	}
	return out
}
