package garbagecollector_test

import (
	"testing"

	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/garbagecollector"
	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func configMap(name string, owners ...api.Object) api.Object {
	var refs []any
	for _, o := range owners {
		r := meta.NewControllerRef(o)
		r.Controller = false
		refs = append(refs, r.Map())
	}
	md := map[string]any{"name": name, "namespace": "default"}
	if refs != nil {
		md["ownerReferences"] = refs
	}
	return api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
}

func TestGarbageCollector(t *testing.T) {
	env := controllertest.New(apiservertest.Start(t).Client)
	g := garbagecollector.New(garbagecollector.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder})
	env.Run(t, g.Run)
	cms := env.Client.Resource("", "v1", "configmaps").Namespace("default")
	exists := func(name string) bool {
		_, err := cms.Get(env.Ctx, name)
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	del := func(name, policy string) {
		t.Helper()
		if _, err := cms.Delete(env.Ctx, name, map[string]any{"propagationPolicy": policy}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("background", func(t *testing.T) {
		owner := env.Create(t, "", "v1", "configmaps", configMap("bg-owner"))
		other := env.Create(t, "", "v1", "configmaps", configMap("bg-other"))
		env.Create(t, "", "v1", "configmaps", configMap("bg-child", owner))
		env.Create(t, "", "v1", "configmaps", configMap("bg-shared", owner, other))
		grand := env.Create(t, "", "v1", "configmaps", configMap("bg-child2", owner))
		env.Create(t, "", "v1", "configmaps", configMap("bg-grandchild", grand))
		del("bg-owner", "Background")
		env.Eventually(t, "dependents collected", func() bool {
			return !exists("bg-child") && !exists("bg-child2") && !exists("bg-grandchild")
		})
		shared, err := cms.Get(env.Ctx, "bg-shared")
		if err != nil {
			t.Fatalf("a dependent with a live owner was deleted: %v", err)
		}
		env.Eventually(t, "dangling reference dropped", func() bool {
			shared, _ = cms.Get(env.Ctx, "bg-shared")
			return len(meta.OwnerRefs(shared)) == 1
		})
	})

	t.Run("foreground", func(t *testing.T) {
		owner := env.Create(t, "", "v1", "configmaps", configMap("fg-owner"))
		child := configMap("fg-child", owner)
		child.SetFinalizers([]string{"example.com/hold"})
		env.Create(t, "", "v1", "configmaps", child)
		del("fg-owner", "Foreground")
		env.Eventually(t, "child marked for deletion", func() bool {
			c, err := cms.Get(env.Ctx, "fg-child")
			return err == nil && meta.Deleting(c)
		})
		if !exists("fg-owner") {
			t.Fatal("owner removed while a blocking dependent remained")
		}
		env.Modify(t, "", "v1", "configmaps", "default", "fg-child", func(o api.Object) { o.SetFinalizers(nil) })
		env.Eventually(t, "owner removed after its dependent", func() bool { return !exists("fg-owner") && !exists("fg-child") })
	})

	t.Run("orphan", func(t *testing.T) {
		owner := env.Create(t, "", "v1", "configmaps", configMap("or-owner"))
		env.Create(t, "", "v1", "configmaps", configMap("or-child", owner))
		del("or-owner", "Orphan")
		env.Eventually(t, "owner removed", func() bool { return !exists("or-owner") })
		c, err := cms.Get(env.Ctx, "or-child")
		if err != nil || len(meta.OwnerRefs(c)) != 0 {
			t.Fatalf("orphaned child = %v, %v; want kept without owner references", c, err)
		}
	})
}
