package broadcast

import (
	"log/slog"
	"sync"

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

// Event is one change to one object. Its objects are decoded on first use,
// once for every watcher, so a resource nobody watches costs no decoding.
// Progress events carry only Rev: every change up to Rev has been sent.
type Event struct {
	Type storage.EventType
	Rev  int64

	decode    DecodeFunc
	log       *slog.Logger // where an undecodable value is reported, once
	key       string
	once      sync.Once
	raw, prev []byte // the stored values, until decoded
	prevRev   int64  // the resourceVersion Prev carries
	obj, pobj *Object
	err       error
}

// DecodeFunc turns a stored value into an Object whose resourceVersion is rev.
type DecodeFunc func(value []byte, rev int64) (*Object, error)

// Objects returns the object after the change and the one before it (nil for
// a create). For a delete, the object is the last state, with the delete's
// revision as its resourceVersion. An error means a stored value does not decode.
func (e *Event) Objects() (obj, prev *Object, err error) {
	e.once.Do(func() {
		if e.prev != nil {
			e.pobj, e.err = e.decode(e.prev, e.prevRev)
		}
		if e.err == nil {
			e.obj, e.err = e.decode(e.raw, e.Rev)
		}
		if e.err != nil {
			e.log.Error("undecodable object in storage", "key", e.key, "rev", e.Rev, "err", e.err)
		}
		e.raw, e.prev = nil, nil
	})
	return e.obj, e.pobj, e.err
}

// convert turns a storage event into a hub event; nil means there is nothing
// to tell a watcher about.
func convert(decode DecodeFunc, log *slog.Logger, se storage.Event) *Event {
	ev := &Event{Type: se.Type, Rev: se.Revision, decode: decode, log: log, key: se.KV.Key}
	if se.Type == storage.EventProgress {
		ev.once.Do(func() {})
		return ev
	}
	if se.Prev != nil {
		ev.prev, ev.prevRev = se.Prev.Value, se.Prev.ModRevision
	}
	switch se.Type {
	case storage.EventDelete:
		if se.Prev == nil {
			return nil
		}
		ev.raw, ev.prev = se.Prev.Value, nil // the last state is the object; there is no before
	default:
		ev.raw = se.KV.Value
	}
	return ev
}
