package informer

import "github.com/capstan-io/capstan/apiserver/api"

// Handler is told about changes to the cache, after the Store has them.
type Handler interface {
	// OnAdd is a new object; initial is true during the first list.
	OnAdd(o api.Object, initial bool)
	// OnUpdate is a changed object, or the same object again at a resync.
	OnUpdate(old, new api.Object)
	// OnDelete is an object gone from the hub (its last known state).
	OnDelete(o api.Object)
}

// HandlerFuncs adapts optional functions to a Handler.
type HandlerFuncs struct {
	AddFunc    func(o api.Object)
	UpdateFunc func(old, new api.Object)
	DeleteFunc func(o api.Object)
}

var _ Handler = HandlerFuncs{}

// OnAdd implements Handler.
func (h HandlerFuncs) OnAdd(o api.Object, _ bool) {
	if h.AddFunc != nil {
		h.AddFunc(o)
	}
}

// OnUpdate implements Handler.
func (h HandlerFuncs) OnUpdate(old, new api.Object) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(old, new)
	}
}

// OnDelete implements Handler.
func (h HandlerFuncs) OnDelete(o api.Object) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(o)
	}
}

// Enqueuer is what EnqueueHandler needs from a work queue.
type Enqueuer interface{ Add(key string) }

// EnqueueHandler adds the key of every added, updated or deleted object to q:
// the usual handler of a controller's primary resource.
func EnqueueHandler(q Enqueuer) Handler {
	return HandlerFuncs{
		AddFunc:    func(o api.Object) { q.Add(Key(o)) },
		UpdateFunc: func(_, n api.Object) { q.Add(Key(n)) },
		DeleteFunc: func(o api.Object) { q.Add(Key(o)) },
	}
}

// EnqueueOwnerHandler adds, for every change to an object, the key of its
// controller owner of kind ownerKind (namespace/ownerName): how a controller
// hears about the objects it owns (a ReplicaSet about its pods).
func EnqueueOwnerHandler(q Enqueuer, ownerKind string) Handler {
	enqueue := func(o api.Object) {
		for _, r := range api.NestedSlice(o, "metadata", "ownerReferences") {
			m, _ := r.(map[string]any)
			if m["kind"] == ownerKind && m["controller"] == true {
				if name, _ := m["name"].(string); name != "" {
					q.Add(KeyOf(o.Namespace(), name))
				}
			}
		}
	}
	return HandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(old, n api.Object) { enqueue(old); enqueue(n) },
		DeleteFunc: enqueue,
	}
}
