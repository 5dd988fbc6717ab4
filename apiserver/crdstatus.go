package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capstan-io/capstan/admission/rules"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/storage"
)

// setConditions writes a CRD's status when it changed: acceptedNames (the
// names that are not in conflict), storedVersions (every storage version it
// ever had) and the NamesAccepted and Established conditions, which are True
// when conflicts is empty. Servers racing to write it lose on the revision
// precondition, harmlessly: they all compute the same status.
func (c *crdController) setConditions(ctx context.Context, kv storage.KeyValue, o api.Object, conflicts []rules.NameConflict) {
	names := rules.NamesOf(o)
	taken := map[string]bool{}
	for _, cf := range conflicts {
		taken[cf.Field.String()] = true
	}
	accepted := map[string]any{"plural": "", "kind": ""}
	for field, v := range map[string]string{"plural": names.Plural, "singular": names.Singular, "kind": names.Kind, "listKind": names.ListKind} {
		if !taken["spec.names."+field] && v != "" {
			accepted[field] = v
		}
	}
	var short []any
	for i, s := range names.ShortNames {
		if !taken["spec.names.shortNames["+strconv.Itoa(i)+"]"] {
			short = append(short, s)
		}
	}
	if len(short) > 0 {
		accepted["shortNames"] = short
	}
	if cats := api.NestedSlice(o, "spec", "names", "categories"); len(cats) > 0 {
		accepted["categories"] = cats
	}

	status, _ := o["status"].(map[string]any)
	stored := api.NestedSlice(status, "storedVersions")
	for _, v := range api.NestedSlice(o, "spec", "versions") {
		vm, _ := v.(map[string]any)
		if b, _ := vm["storage"].(bool); b && !containsAny(stored, vm["name"]) {
			stored = append(stored, vm["name"])
		}
	}
	if stored == nil {
		stored = []any{}
	}
	type cond struct{ typ, status, reason, msg string }
	conds := []cond{
		{"NamesAccepted", "True", "NoConflicts", "no conflicts found"},
		{"Established", "True", "InitialNamesAccepted", "the initial names have been accepted"},
	}
	if len(conflicts) > 0 {
		msgs := make([]string, len(conflicts))
		for i, cf := range conflicts {
			msgs[i] = cf.Message()
		}
		conds = []cond{
			{"NamesAccepted", "False", conflicts[0].Reason, strings.Join(msgs, ", ")},
			{"Established", "False", "NotAccepted", "not all names are accepted"},
		}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var out []any
	for _, cd := range conds {
		m := map[string]any{"type": cd.typ, "status": cd.status, "lastTransitionTime": now, "reason": cd.reason, "message": cd.msg}
		if prev := findCondition(status, cd.typ); prev != nil && prev["status"] == cd.status && prev["lastTransitionTime"] != nil {
			m["lastTransitionTime"] = prev["lastTransitionTime"]
		}
		out = append(out, m)
	}
	want := map[string]any{"acceptedNames": accepted, "storedVersions": stored, "conditions": out}
	if reflect.DeepEqual(normalize(status), normalize(want)) {
		return
	}
	o = o.DeepCopy()
	o["status"] = want
	body, err := endpoints.EncodeForStorage(o)
	if err != nil {
		return
	}
	if _, err := c.store.Update(ctx, kv.Key, body, kv.ModRevision); err != nil && !errors.Is(err, storage.ErrConflict) && !errors.Is(err, storage.ErrNotFound) {
		c.log.WarnContext(ctx, "setting CRD conditions", "key", kv.Key, "err", err)
	}
}

func containsAny(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func findCondition(status map[string]any, typ string) map[string]any {
	for _, c := range api.NestedSlice(status, "conditions") {
		if m, _ := c.(map[string]any); m["type"] == typ {
			return m
		}
	}
	return nil
}

func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// crdLister reads the stored CRDs for admission's name-conflict check. Its
// store is set once Run has one; until then it lists nothing. It is safe for
// concurrent use.
type crdLister struct {
	mu    sync.RWMutex
	store storage.Interface
}

var _ rules.CRDLister = (*crdLister)(nil)

func (l *crdLister) setStore(s storage.Interface) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.store = s
}

// ListCRDs reads every stored CRD from etcd, so a CRD created a moment ago on
// another server counts.
func (l *crdLister) ListCRDs(ctx context.Context) ([]api.Object, error) {
	l.mu.RLock()
	s := l.store
	l.mu.RUnlock()
	if s == nil {
		return nil, nil
	}
	res, err := s.List(ctx, crdResource.KeyPrefix(), storage.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]api.Object, 0, len(res.Items))
	for _, kv := range res.Items {
		o, err := api.Decode(kv.Value)
		if err != nil {
			continue
		}
		out = append(out, o)
	}
	return out, nil
}
