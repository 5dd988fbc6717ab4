package informer

import (
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

func TestStoreIndexes(t *testing.T) {
	t.Parallel()
	pod := func(ns, name, node, owner string) api.Object {
		return api.Object{"metadata": map[string]any{"name": name, "namespace": ns,
			"ownerReferences": []any{map[string]any{"uid": owner}}}, "spec": map[string]any{"nodeName": node}}
	}
	s := NewStore(nil)
	s.put(pod("ns1", "a", "n1", "rs1"))
	s.put(pod("ns1", "b", "n2", "rs1"))
	s.put(pod("ns2", "c", "", "rs2"))
	s.put(pod("ns1", "b", "n1", "rs1")) // moved: n2 must drop it
	s.remove("ns2/c")
	for _, tc := range []struct {
		name, index, value string
		want               int
	}{
		{"namespace", IndexNamespace, "ns1", 2},
		{"removed namespace", IndexNamespace, "ns2", 0},
		{"node", IndexNodeName, "n1", 2},
		{"node after move", IndexNodeName, "n2", 0},
		{"owner", IndexOwner, "rs1", 2},
		{"removed owner", IndexOwner, "rs2", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(s.ByIndex(tc.index, tc.value)); got != tc.want {
				t.Fatalf("ByIndex(%s, %s) = %d, want %d", tc.index, tc.value, got, tc.want)
			}
		})
	}
	if ns, n := SplitKey("a/b"); ns != "a" || n != "b" {
		t.Fatalf("SplitKey = %q %q", ns, n)
	}
}

type keys []string

func (k *keys) Add(key string) { *k = append(*k, key) }

func TestEnqueueOwnerHandler(t *testing.T) {
	t.Parallel()
	pod := api.Object{"metadata": map[string]any{"name": "p", "namespace": "ns", "ownerReferences": []any{
		map[string]any{"kind": "ReplicaSet", "name": "rs", "uid": "1", "controller": true},
		map[string]any{"kind": "ReplicaSet", "name": "not-controller", "uid": "2"},
		map[string]any{"kind": "Job", "name": "job", "uid": "3", "controller": true},
	}}}
	var got keys
	h := EnqueueOwnerHandler(&got, "ReplicaSet")
	h.OnAdd(pod, false)
	h.OnDelete(pod)
	if len(got) != 2 || got[0] != "ns/rs" || got[1] != "ns/rs" {
		t.Fatalf("enqueued %v, want [ns/rs ns/rs]", got)
	}
}
