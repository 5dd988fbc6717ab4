package deployment

import (
	"reflect"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

func TestRolling(t *testing.T) {
	t0 := time.Unix(0, 0)
	for _, tc := range []struct {
		name     string
		s        Strategy
		newRS    RS
		olds     []RS
		wantNew  int64
		wantOlds map[string]int64
	}{
		{"surge first", Strategy{3, 1, 0}, RS{Name: "new"}, []RS{{Name: "a", Replicas: 3, Available: 3}}, 1, map[string]int64{"a": 3}},
		{"scale old down once new is available", Strategy{3, 1, 0}, RS{Name: "new", Replicas: 1, Available: 1}, []RS{{Name: "a", Replicas: 3, Available: 3}}, 1, map[string]int64{"a": 2}},
		{"no scale down while new is unavailable", Strategy{3, 1, 0}, RS{Name: "new", Replicas: 1}, []RS{{Name: "a", Replicas: 3, Available: 3}}, 1, map[string]int64{"a": 3}},
		{"unavailable budget without surge", Strategy{4, 0, 1}, RS{Name: "new"}, []RS{{Name: "a", Replicas: 4, Available: 4}}, 0, map[string]int64{"a": 3}},
		{"unhealthy old pods go first", Strategy{3, 0, 1}, RS{Name: "new"}, []RS{{Name: "a", Replicas: 3, Available: 1}}, 0, map[string]int64{"a": 2}},
		{"oldest old first", Strategy{2, 0, 1}, RS{Name: "new"}, []RS{{Name: "b", Replicas: 1, Available: 1, Created: t0.Add(time.Hour)}, {Name: "a", Replicas: 1, Available: 1, Created: t0}}, 0, map[string]int64{"a": 0, "b": 1}},
		{"finish", Strategy{3, 1, 0}, RS{Name: "new", Replicas: 3, Available: 3}, []RS{{Name: "a", Replicas: 1, Available: 1}}, 3, map[string]int64{"a": 0}},
		{"scale new down to size", Strategy{2, 1, 0}, RS{Name: "new", Replicas: 5, Available: 5}, nil, 2, map[string]int64{}},
		{"scale new up to size", Strategy{5, 1, 1}, RS{Name: "new", Replicas: 2, Available: 2}, nil, 5, map[string]int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, o := Rolling(tc.s, tc.newRS, tc.olds)
			if n != tc.wantNew || !reflect.DeepEqual(o, tc.wantOlds) {
				t.Fatalf("Rolling = %d, %v; want %d, %v", n, o, tc.wantNew, tc.wantOlds)
			}
			total := n
			for _, v := range o {
				total += v
			}
			if max(tc.s.Replicas, tc.newRS.Replicas+sum(tc.olds)) < total && total > tc.s.Replicas+tc.s.MaxSurge {
				t.Fatalf("total %d exceeds replicas+maxSurge", total)
			}
		})
	}
}

func sum(rs []RS) int64 {
	var n int64
	for _, r := range rs {
		n += r.Replicas
	}
	return n
}

func TestRecreate(t *testing.T) {
	olds := []RS{{Name: "a", Replicas: 3}}
	if n, o := Recreate(3, RS{Name: "new"}, olds, 2); n != 0 || o["a"] != 0 {
		t.Fatalf("with old pods left: %d, %v", n, o)
	}
	if n, _ := Recreate(3, RS{Name: "new"}, olds, 0); n != 3 {
		t.Fatalf("without old pods: new = %d, want 3", n)
	}
}

func TestHash(t *testing.T) {
	a := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}}, "spec": map[string]any{"containers": []any{}}}
	b := map[string]any{"spec": map[string]any{"containers": []any{}}, "metadata": map[string]any{"labels": map[string]any{"app": "x"}}}
	if Hash(a, 0) != Hash(b, 0) {
		t.Fatal("hash depends on key order")
	}
	if Hash(a, 0) == Hash(a, 1) {
		t.Fatal("collision count does not change the hash")
	}
	for _, r := range Hash(a, 0) {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			t.Fatalf("hash %q is not a safe label value", Hash(a, 0))
		}
	}
}

func TestStatusConditions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	dep := func(progressing map[string]any, paused bool) api.Object {
		d := api.Object{"metadata": map[string]any{"name": "d", "generation": 2},
			"spec": map[string]any{"replicas": 2, "paused": paused, "progressDeadlineSeconds": 60}}
		if progressing != nil {
			api.SetNested(d, []any{progressing}, "status", "conditions")
		}
		return d
	}
	rs := func(name string, replicas, available int64) api.Object {
		return api.Object{"metadata": map[string]any{"name": name},
			"status": map[string]any{"replicas": replicas, "readyReplicas": available, "availableReplicas": available}}
	}
	stale := cond("Progressing", "True", "ReplicaSetUpdated", "")
	stale["lastUpdateTime"] = "2026-01-01T00:00:00Z"
	stuck := dep(stale, false)
	for k, v := range map[string]any{"replicas": 3, "updatedReplicas": 1} {
		api.SetNested(stuck, v, "status", k)
	}
	for _, tc := range []struct {
		name                   string
		d                      api.Object
		newRS                  api.Object
		olds                   []api.Object
		progressed             bool
		wantAvailable, wantPro string
	}{
		{"complete", dep(nil, false), rs("n", 2, 2), nil, false, "True", "NewReplicaSetAvailable"},
		{"progressing", dep(nil, false), rs("n", 1, 0), []api.Object{rs("o", 2, 2)}, true, "True", "ReplicaSetUpdated"},
		{"deadline exceeded", stuck, rs("n", 1, 0), []api.Object{rs("o", 2, 0)}, false, "False", "ProgressDeadlineExceeded"},
		{"paused", dep(nil, true), rs("n", 1, 1), []api.Object{rs("o", 1, 1)}, false, "True", "DeploymentPaused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, _ := Status(tc.d, tc.newRS, tc.olds, tc.progressed, now)
			x := api.Object{"status": st}
			av, _ := metaCondition(x, "Available")
			pr, _ := metaCondition(x, "Progressing")
			if av["status"] != tc.wantAvailable || pr["reason"] != tc.wantPro {
				t.Fatalf("Available=%v Progressing=%v; want %s, %s", av["status"], pr["reason"], tc.wantAvailable, tc.wantPro)
			}
			if api.Int64(st["observedGeneration"]) != 2 {
				t.Fatalf("observedGeneration = %v", st["observedGeneration"])
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	undo := map[string]any{"metadata": map[string]any{"creationTimestamp": nil, "labels": map[string]any{"app": "x"}}, "spec": map[string]any{}}
	rs := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x", HashLabel: "abc"}}, "spec": map[string]any{}}
	if !equalIgnoreHash(undo, rs) {
		t.Fatalf("templates differ: %v vs %v", Normalize(undo), Normalize(rs))
	}
	if Hash(Normalize(undo), 0) != Hash(Normalize(rs), 0) {
		t.Fatal("normalized templates hash differently")
	}
}
