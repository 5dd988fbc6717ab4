package broadcast

import (
	"github.com/capstan-io/capstan/storage"
)

// Object is one object as the hub hands it to watchers: encoded once, with the
// values selectors look at extracted once.
type Object struct {
	JSON      []byte
	Namespace string
	Labels    map[string]string
	Fields    map[string]string
}

// Event is one change to one object. Prev is nil for a create. For a delete,
// Object is the last state, with the delete's revision as its resourceVersion.
// Progress events carry only Rev: every change up to Rev has been sent.
type Event struct {
	Type   storage.EventType
	Rev    int64
	Object *Object
	Prev   *Object
}

// DecodeFunc turns a stored value into an Object whose resourceVersion is rev.
type DecodeFunc func(value []byte, rev int64) (*Object, error)

// convert turns a storage event into a hub event.
func convert(decode DecodeFunc, se storage.Event) (*Event, error) {
	ev := &Event{Type: se.Type, Rev: se.Revision}
	if se.Type == storage.EventProgress {
		return ev, nil
	}
	var err error
	if se.Prev != nil {
		if ev.Prev, err = decode(se.Prev.Value, se.Prev.ModRevision); err != nil {
			return nil, err
		}
	}
	switch se.Type {
	case storage.EventDelete:
		if se.Prev == nil {
			return nil, nil // nothing to tell a watcher about
		}
		ev.Object, err = decode(se.Prev.Value, se.Revision)
	default:
		ev.Object, err = decode(se.KV.Value, se.Revision)
	}
	if err != nil {
		return nil, err
	}
	return ev, nil
}
