package authcache

import (
	"log/slog"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/auth/authz"
	"github.com/capstan-io/capstan/storage"
)

// RBACSink feeds one kind of rbac object into an RBAC authorizer.
type RBACSink struct {
	RBAC *authz.RBAC
	Kind string
	Log  *slog.Logger
}

var _ broadcast.Sink = RBACSink{}

// Replace implements broadcast.Sink.
func (s RBACSink) Replace(items []storage.KeyValue, _ int64) {
	s.RBAC.Reset(s.Kind)
	for _, kv := range items {
		s.Put(kv.Value, kv.ModRevision)
	}
}

// Put implements broadcast.Sink.
func (s RBACSink) Put(b []byte, _ int64) {
	if err := s.RBAC.Put(s.Kind, b); err != nil && s.Log != nil {
		s.Log.Warn("ignoring undecodable rbac object", "kind", s.Kind, "err", err)
	}
}

// Delete implements broadcast.Sink.
func (s RBACSink) Delete(b []byte, _ int64) {
	if o, err := api.Decode(b); err == nil {
		s.RBAC.Delete(s.Kind, o.Namespace(), o.Name())
	}
}

// Unsynced implements broadcast.Sink. The rules stay in force until the re-list:
// revoking everyone's access during a watch hiccup would be worse.
func (RBACSink) Unsynced() {}

// PodSink feeds pods into the node authorizer's graph and a UID table.
type PodSink struct {
	Nodes *authz.NodeRestriction
	UIDs  *UIDs
}

var _ broadcast.Sink = PodSink{}

// Replace implements broadcast.Sink.
func (s PodSink) Replace(items []storage.KeyValue, rev int64) {
	s.Nodes.Reset()
	for _, kv := range items {
		_ = s.Nodes.PutPod(kv.Value) // a pod the graph cannot read grants its node nothing
	}
	s.UIDs.Replace(items, rev)
}

// Put implements broadcast.Sink.
func (s PodSink) Put(b []byte, rev int64) {
	_ = s.Nodes.PutPod(b)
	s.UIDs.Put(b, rev)
}

// Delete implements broadcast.Sink.
func (s PodSink) Delete(b []byte, rev int64) {
	if o, err := api.Decode(b); err == nil {
		s.Nodes.DeletePod(o.Namespace(), o.Name())
	}
	s.UIDs.Delete(b, rev)
}

// Unsynced implements broadcast.Sink.
func (PodSink) Unsynced() {}
