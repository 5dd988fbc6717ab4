package replicaset_test

import (
	"testing"

	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/controllers/replicaset"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func ownedPods(t *testing.T, env *controllertest.Env, uid string) []api.Object {
	t.Helper()
	var out []api.Object
	for _, p := range env.List(t, "", "v1", "pods", "default") {
		if ref, ok := meta.ControllerRef(p); ok && ref.UID == uid && meta.PodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

func TestReplicaSetController(t *testing.T) {
	env := controllertest.New(apiservertest.Start(t).Client)
	c := replicaset.New(replicaset.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder})
	env.Run(t, c.Run)

	// An orphan with matching labels is adopted rather than duplicated.
	orphan := env.Create(t, "", "v1", "pods", api.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "orphan", "namespace": "default", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}})
	rs := env.Create(t, "apps", "v1", "replicasets", controllertest.ReplicaSet("default", "web", 3))
	rsc := env.Client.Resource("apps", "v1", "replicasets").Namespace("default")
	env.Eventually(t, "3 pods and status.replicas 3", func() bool {
		cur, err := rsc.Get(env.Ctx, "web")
		return err == nil && len(ownedPods(t, env, rs.UID())) == 3 && api.Int64(api.Nested(cur, "status", "replicas")) == 3 &&
			api.Int64(api.Nested(cur, "status", "observedGeneration")) == cur.Generation()
	})
	pods := ownedPods(t, env, rs.UID())
	adopted := false
	for _, p := range pods {
		adopted = adopted || p.UID() == orphan.UID()
		ref, _ := meta.ControllerRef(p)
		if !ref.BlockOwnerDeletion || ref.Kind != "ReplicaSet" || ref.Name != "web" {
			t.Errorf("pod %s controller ref = %+v", p.Name(), ref)
		}
	}
	if !adopted {
		t.Error("orphan pod was not adopted")
	}

	// Scale up and down through the scale-free path: update spec.replicas.
	for _, n := range []int{7, 2} {
		env.Modify(t, "apps", "v1", "replicasets", "default", "web", func(o api.Object) { api.SetNested(o, n, "spec", "replicas") })
		env.Eventually(t, "scaled", func() bool { return len(ownedPods(t, env, rs.UID())) == n })
	}

	// A deleted pod is replaced.
	victim := ownedPods(t, env, rs.UID())[0]
	if _, err := env.Client.Resource("", "v1", "pods").Namespace("default").Delete(env.Ctx, victim.Name(), nil); err != nil {
		t.Fatal(err)
	}
	env.Eventually(t, "replacement", func() bool {
		ps := ownedPods(t, env, rs.UID())
		return len(ps) == 2 && ps[0].UID() != victim.UID() && ps[1].UID() != victim.UID()
	})

	// Relabelling a pod releases it and a replacement is created.
	p := ownedPods(t, env, rs.UID())[0].DeepCopy()
	api.SetNested(p, map[string]any{"app": "other"}, "metadata", "labels")
	if _, err := env.Client.Resource("", "v1", "pods").Namespace("default").Update(env.Ctx, p, ""); err != nil {
		t.Fatal(err)
	}
	env.Eventually(t, "release and replace", func() bool {
		got, err := env.Client.Resource("", "v1", "pods").Namespace("default").Get(env.Ctx, p.Name())
		_, controlled := meta.ControllerRef(got)
		return err == nil && !controlled && len(ownedPods(t, env, rs.UID())) == 2
	})

	// Events explain what happened.
	env.Eventually(t, "SuccessfulCreate event", func() bool {
		for _, e := range env.List(t, "", "v1", "events", "default") {
			if e["reason"] == "SuccessfulCreate" && api.NestedString(e, "involvedObject", "kind") == "ReplicaSet" {
				return true
			}
		}
		return false
	})
}
