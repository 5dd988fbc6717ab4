// Package meta reads and builds the metadata the controllers share:
// owner references, label selectors and pod readiness. It holds no state
// and is safe for concurrent use.
package meta

import (
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

// OwnerRef is one metadata.ownerReferences entry.
type OwnerRef struct {
	APIVersion, Kind, Name, UID    string
	Controller, BlockOwnerDeletion bool
}

// Map is the wire form of r.
func (r OwnerRef) Map() map[string]any {
	return map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": r.UID,
		"controller": r.Controller, "blockOwnerDeletion": r.BlockOwnerDeletion}
}

// OwnerRefs returns the owner references of o.
func OwnerRefs(o api.Object) []OwnerRef {
	var out []OwnerRef
	for _, v := range api.NestedSlice(o, "metadata", "ownerReferences") {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		r := OwnerRef{}
		r.APIVersion, _ = m["apiVersion"].(string)
		r.Kind, _ = m["kind"].(string)
		r.Name, _ = m["name"].(string)
		r.UID, _ = m["uid"].(string)
		r.Controller, _ = m["controller"].(bool)
		r.BlockOwnerDeletion, _ = m["blockOwnerDeletion"].(bool)
		out = append(out, r)
	}
	return out
}

// SetOwnerRefs replaces the owner references of o.
func SetOwnerRefs(o api.Object, refs []OwnerRef) {
	if len(refs) == 0 {
		delete(o.Meta(), "ownerReferences")
		return
	}
	l := make([]any, len(refs))
	for i, r := range refs {
		l[i] = r.Map()
	}
	api.SetNested(o, l, "metadata", "ownerReferences")
}

// ControllerRef returns the owner reference of o with controller: true.
func ControllerRef(o api.Object) (OwnerRef, bool) {
	for _, r := range OwnerRefs(o) {
		if r.Controller {
			return r, true
		}
	}
	return OwnerRef{}, false
}

// NewControllerRef is the reference a controller puts on what it creates.
func NewControllerRef(owner api.Object) OwnerRef {
	return OwnerRef{APIVersion: owner.APIVersion(), Kind: owner.Kind(), Name: owner.Name(), UID: owner.UID(),
		Controller: true, BlockOwnerDeletion: true}
}

// Deleting reports whether o has a deletionTimestamp.
func Deleting(o api.Object) bool { return o.DeletionTimestamp() != "" }

// CreationTime is the creationTimestamp of o (zero if unset).
func CreationTime(o api.Object) time.Time {
	t, _ := time.Parse(time.RFC3339, api.NestedString(o, "metadata", "creationTimestamp"))
	return t
}

// Condition returns the condition of the given type in status.conditions.
func Condition(o api.Object, typ string) (map[string]any, bool) {
	for _, c := range api.NestedSlice(o, "status", "conditions") {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m, true
		}
	}
	return nil, false
}

// SetCondition sets (or replaces) a condition of o's status. The transition
// time changes only when the status does.
func SetCondition(o api.Object, c map[string]any, now time.Time) {
	conds := api.NestedSlice(o, "status", "conditions")
	ts := now.UTC().Format(time.RFC3339)
	for i, v := range conds {
		m, ok := v.(map[string]any)
		if !ok || m["type"] != c["type"] {
			continue
		}
		c["lastTransitionTime"] = m["lastTransitionTime"]
		if m["status"] != c["status"] || c["lastTransitionTime"] == nil {
			c["lastTransitionTime"] = ts
		}
		if _, ok := c["lastUpdateTime"]; ok {
			c["lastUpdateTime"] = ts
		}
		conds[i] = c
		api.SetNested(o, conds, "status", "conditions")
		return
	}
	c["lastTransitionTime"] = ts
	if _, ok := c["lastUpdateTime"]; ok {
		c["lastUpdateTime"] = ts
	}
	api.SetNested(o, append(conds, c), "status", "conditions")
}

// PodActive reports whether a pod counts towards replicas: not terminal and
// not being deleted.
func PodActive(p api.Object) bool {
	ph := api.NestedString(p, "status", "phase")
	return ph != "Succeeded" && ph != "Failed" && !Deleting(p)
}

// PodReady reports whether the pod's Ready condition is True, and since when.
func PodReady(p api.Object) (bool, time.Time) {
	c, ok := Condition(p, "Ready")
	if !ok || c["status"] != "True" {
		return false, time.Time{}
	}
	s, _ := c["lastTransitionTime"].(string)
	t, _ := time.Parse(time.RFC3339, s)
	return true, t
}

// PodAvailable reports whether a pod has been ready for minReady at now; if
// not yet, wait says how long until it will be.
func PodAvailable(p api.Object, minReady time.Duration, now time.Time) (ok bool, wait time.Duration) {
	ready, since := PodReady(p)
	if !ready {
		return false, 0
	}
	if minReady <= 0 || since.IsZero() || !since.Add(minReady).After(now) {
		return true, 0
	}
	return false, since.Add(minReady).Sub(now)
}

// WithKind returns o with apiVersion and kind set when they are missing, as
// they are on list items; o itself is not modified.
func WithKind(o api.Object, apiVersion, kind string) api.Object {
	if o.Kind() != "" {
		return o
	}
	out := make(api.Object, len(o)+2)
	for k, v := range o {
		out[k] = v
	}
	out["apiVersion"], out["kind"] = apiVersion, kind
	return out
}
