package deployment_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/deployment"
	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/controllers/replicaset"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func newDeployment(name string, replicas int, strategy map[string]any) api.Object {
	return api.Object{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{"replicas": replicas, "strategy": strategy,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": controllertest.PodTemplate(name)}}
}

func start(t *testing.T) *controllertest.Env {
	env := controllertest.New(apiservertest.Start(t).Client)
	d := deployment.New(deployment.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder})
	r := replicaset.New(replicaset.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder})
	env.Run(t, d.Run, r.Run, controllertest.FakeKubelet(env.Client, false))
	return env
}

func activePods(t *testing.T, env *controllertest.Env, app string) []api.Object {
	var out []api.Object
	for _, p := range env.List(t, "", "v1", "pods", "default") {
		if p.Labels()["app"] == app && meta.PodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

func complete(env *controllertest.Env, name string, replicas int64) func() bool {
	return func() bool {
		d, err := env.Client.Resource("apps", "v1", "deployments").Namespace("default").Get(env.Ctx, name)
		if err != nil {
			return false
		}
		st := api.NestedMap(d, "status")
		c, _ := meta.Condition(d, "Progressing")
		return api.Int64(st["observedGeneration"]) == d.Generation() && api.Int64(st["updatedReplicas"]) == replicas &&
			api.Int64(st["replicas"]) == replicas && api.Int64(st["availableReplicas"]) == replicas && c["reason"] == "NewReplicaSetAvailable"
	}
}

func TestRollingUpdate(t *testing.T) {
	env := start(t)
	env.Create(t, "apps", "v1", "deployments", newDeployment("web", 4, map[string]any{"type": "RollingUpdate",
		"rollingUpdate": map[string]any{"maxSurge": 1, "maxUnavailable": 0}}))
	env.Eventually(t, "first rollout complete", complete(env, "web", 4))

	// Sample pod counts during a rollout: never above replicas+maxSurge.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	peak := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			peak = max(peak, len(activePods(t, env, "web")))
			time.Sleep(5 * time.Millisecond)
		}
	}()
	env.Modify(t, "apps", "v1", "deployments", "default", "web", func(o api.Object) {
		api.SetNested(o, map[string]any{"v": "2"}, "spec", "template", "metadata", "annotations")
	})
	env.Eventually(t, "second rollout complete", complete(env, "web", 4))
	cancel()
	wg.Wait()
	if peak > 5 {
		t.Errorf("peak of %d pods during a rollout with 4 replicas and maxSurge 1", peak)
	}
	rss := env.List(t, "apps", "v1", "replicasets", "default")
	revs := map[string]bool{}
	for _, rs := range rss {
		revs[rs.StringMap("annotations")[deployment.RevisionAnnotation]] = true
		if rs.Labels()[deployment.HashLabel] == "" {
			t.Errorf("replica set %s has no %s label", rs.Name(), deployment.HashLabel)
		}
	}
	if len(rss) != 2 || !revs["1"] || !revs["2"] {
		t.Errorf("replica sets have revisions %v, want 1 and 2", revs)
	}
	d, _ := env.Client.Resource("apps", "v1", "deployments").Namespace("default").Get(env.Ctx, "web")
	if got := d.StringMap("annotations")[deployment.RevisionAnnotation]; got != "2" {
		t.Errorf("deployment revision = %q, want 2", got)
	}

	// Rolling back to the first template makes its ReplicaSet revision 3.
	env.Modify(t, "apps", "v1", "deployments", "default", "web", func(o api.Object) {
		delete(api.NestedMap(o, "spec", "template", "metadata"), "annotations")
	})
	env.Eventually(t, "rollback complete with revision 3", func() bool {
		d, _ := env.Client.Resource("apps", "v1", "deployments").Namespace("default").Get(env.Ctx, "web")
		return complete(env, "web", 4)() && d.StringMap("annotations")[deployment.RevisionAnnotation] == "3" && len(env.List(t, "apps", "v1", "replicasets", "default")) == 2
	})

	// Scaling and revisionHistoryLimit 0 leave one ReplicaSet of 2.
	env.Modify(t, "apps", "v1", "deployments", "default", "web", func(o api.Object) {
		api.SetNested(o, 2, "spec", "replicas")
		api.SetNested(o, 0, "spec", "revisionHistoryLimit")
	})
	env.Eventually(t, "scaled down with history pruned", func() bool {
		return complete(env, "web", 2)() && len(env.List(t, "apps", "v1", "replicasets", "default")) == 1 && len(activePods(t, env, "web")) == 2
	})
}

func TestRecreateAndPause(t *testing.T) {
	env := start(t)
	env.Create(t, "apps", "v1", "deployments", newDeployment("db", 2, map[string]any{"type": "Recreate"}))
	env.Eventually(t, "rollout complete", complete(env, "db", 2))
	env.Modify(t, "apps", "v1", "deployments", "default", "db", func(o api.Object) {
		api.SetNested(o, true, "spec", "paused")
		api.SetNested(o, map[string]any{"v": "2"}, "spec", "template", "metadata", "annotations")
	})
	env.Eventually(t, "paused condition", func() bool {
		d, _ := env.Client.Resource("apps", "v1", "deployments").Namespace("default").Get(env.Ctx, "db")
		c, _ := meta.Condition(d, "Progressing")
		return c["reason"] == "DeploymentPaused" && api.Int64(api.Nested(d, "status", "observedGeneration")) == d.Generation()
	})
	if n := len(env.List(t, "apps", "v1", "replicasets", "default")); n != 1 {
		t.Fatalf("a paused deployment rolled out: %d replica sets", n)
	}
	env.Modify(t, "apps", "v1", "deployments", "default", "db", func(o api.Object) { api.SetNested(o, false, "spec", "paused") })
	env.Eventually(t, "recreate rollout complete", complete(env, "db", 2))
	// Recreate never ran old and new pods together: the new pods were all
	// created after the last old pod was deleted, which the events show.
	var up, down int
	for _, e := range env.List(t, "", "v1", "events", "default") {
		if e["reason"] == "ScalingReplicaSet" && api.NestedString(e, "involvedObject", "name") == "db" {
			if msg, _ := e["message"].(string); len(msg) > 8 && msg[:9] == "Scaled up" {
				up++
			} else {
				down++
			}
		}
	}
	if up == 0 || down == 0 {
		t.Errorf("ScalingReplicaSet events: %d up, %d down", up, down)
	}
}
