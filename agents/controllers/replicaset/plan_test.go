package replicaset

import (
	"reflect"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

type podOpt func(api.Object)

func onNode(n string) podOpt { return func(p api.Object) { api.SetNested(p, n, "spec", "nodeName") } }
func phase(ph string) podOpt { return func(p api.Object) { api.SetNested(p, ph, "status", "phase") } }
func created(s string) podOpt {
	return func(p api.Object) { api.SetNested(p, s, "metadata", "creationTimestamp") }
}
func ready(since string) podOpt {
	return func(p api.Object) {
		api.SetNested(p, []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": since}}, "status", "conditions")
	}
}
func owner(uid string) podOpt {
	return func(p api.Object) {
		api.SetNested(p, []any{map[string]any{"kind": "ReplicaSet", "name": "rs", "uid": uid, "controller": true}}, "metadata", "ownerReferences")
	}
}
func labels(l map[string]any) podOpt {
	return func(p api.Object) { api.SetNested(p, l, "metadata", "labels") }
}
func deleting() podOpt {
	return func(p api.Object) { api.SetNested(p, "2026-01-01T00:00:00Z", "metadata", "deletionTimestamp") }
}

func pod(name string, opts ...podOpt) api.Object {
	p := api.Object{"metadata": map[string]any{"name": name, "namespace": "ns", "labels": map[string]any{"app": "a"}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func rs(replicas int) api.Object {
	return api.Object{"metadata": map[string]any{"name": "rs", "namespace": "ns", "uid": "u1", "generation": 3},
		"spec": map[string]any{"replicas": replicas, "minReadySeconds": 10,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "a"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "a", "tier": "x"}}}}}
}

func names(ps []api.Object) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name())
	}
	return out
}

func TestClaim(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		pods                  []api.Object
		owned, adopt, release []string
	}{
		{"own matching controlled pod", []api.Object{pod("p", owner("u1"))}, []string{"p"}, []string{}, []string{}},
		{"adopt orphan", []api.Object{pod("p")}, []string{}, []string{"p"}, []string{}},
		{"leave other controller's pod", []api.Object{pod("p", owner("u2"))}, []string{}, []string{}, []string{}},
		{"release no longer matching", []api.Object{pod("p", owner("u1"), labels(map[string]any{"app": "b"}))}, []string{}, []string{}, []string{"p"}},
		{"ignore non-matching orphan", []api.Object{pod("p", labels(map[string]any{"app": "b"}))}, []string{}, []string{}, []string{}},
		{"no adopting deleting or finished pods", []api.Object{pod("p", deleting()), pod("q", phase("Succeeded"))}, []string{}, []string{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, a, r := Claim(rs(1), tc.pods)
			if got := [][]string{names(o), names(a), names(r)}; !reflect.DeepEqual(got, [][]string{tc.owned, tc.adopt, tc.release}) {
				t.Fatalf("owned, adopt, release = %v, want %v %v %v", got, tc.owned, tc.adopt, tc.release)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		replicas   int
		pods       []api.Object
		wantCreate int
		wantDelete []string
	}{
		{"create missing", 3, []api.Object{pod("a")}, 2, []string{}},
		{"terminal and deleting pods do not count", 2, []api.Object{pod("a", phase("Failed")), pod("b", deleting()), pod("c")}, 1, []string{}},
		{"steady", 1, []api.Object{pod("a")}, 0, []string{}},
		{"unscheduled first", 1, []api.Object{pod("a", onNode("n"), phase("Running")), pod("b")}, 0, []string{"b"}},
		{"not ready before ready", 1, []api.Object{
			pod("r", onNode("n"), phase("Running"), ready("2026-01-01T00:00:00Z")),
			pod("nr", onNode("n"), phase("Running"))}, 0, []string{"nr"}},
		{"pending before running", 1, []api.Object{pod("run", onNode("n"), phase("Running")), pod("pend", onNode("n"), phase("Pending"))}, 0, []string{"pend"}},
		{"newest first", 2, []api.Object{
			pod("old", onNode("n"), created("2026-01-01T00:00:00Z")),
			pod("new", onNode("n"), created("2026-01-03T00:00:00Z")),
			pod("mid", onNode("n"), created("2026-01-02T00:00:00Z"))}, 0, []string{"new"}},
		{"scale to zero", 0, []api.Object{pod("a"), pod("b")}, 0, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, d := Diff(rs(tc.replicas), tc.pods)
			if c != tc.wantCreate || !reflect.DeepEqual(names(d), tc.wantDelete) {
				t.Fatalf("Diff = %d, %v; want %d, %v", c, names(d), tc.wantCreate, tc.wantDelete)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	now, _ := time.Parse(time.RFC3339, "2026-01-01T00:01:00Z")
	pods := []api.Object{
		pod("avail", labels(map[string]any{"app": "a", "tier": "x"}), ready("2026-01-01T00:00:00Z")),
		pod("young", ready("2026-01-01T00:00:55Z")),
		pod("notready"),
		pod("gone", phase("Failed")),
	}
	st, requeue := Status(rs(3), pods, now)
	want := map[string]any{"replicas": int64(3), "fullyLabeledReplicas": int64(1), "readyReplicas": int64(2),
		"availableReplicas": int64(1), "observedGeneration": int64(3)}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("status = %v, want %v", st, want)
	}
	if requeue != 5*time.Second {
		t.Errorf("requeue = %v, want 5s", requeue)
	}
}

func TestSlowStartBatches(t *testing.T) {
	for n, want := range map[int][]int{0: nil, 1: {1}, 2: {1, 1}, 7: {1, 2, 4}, 10: {1, 2, 4, 3}} {
		if got := SlowStartBatches(n); !reflect.DeepEqual(got, want) {
			t.Errorf("SlowStartBatches(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestExpectations(t *testing.T) {
	e := NewExpectations(time.Minute)
	now := time.Now()
	e.now = func() time.Time { return now }
	e.Expect("k", 2, []string{"ns/p"})
	for i, step := range []func(){func() {}, func() { e.CreationObserved("k") }, func() { e.CreationObserved("k") }} {
		step()
		if e.Satisfied("k") {
			t.Fatalf("satisfied after step %d", i)
		}
	}
	e.DeletionObserved("k", "ns/p")
	if !e.Satisfied("k") {
		t.Fatal("not satisfied after all observed")
	}
	e.Expect("k", 1, nil)
	now = now.Add(2 * time.Minute)
	if !e.Satisfied("k") {
		t.Fatal("expired expectations still block")
	}
}
