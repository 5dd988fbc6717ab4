package namespace_test

import (
	"testing"

	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/namespace"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func TestNamespaceDeletion(t *testing.T) {
	env := controllertest.New(apiservertest.Start(t).Client)
	c := namespace.New(namespace.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder})
	env.Run(t, c.Run)
	env.Create(t, "", "v1", "namespaces", api.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "doomed"}})
	env.Create(t, "", "v1", "configmaps", api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "doomed"}})
	env.Create(t, "apps", "v1", "replicasets", controllertest.ReplicaSet("doomed", "web", 0))
	// A finalizer held by someone else delays the namespace until it is removed.
	held := env.Create(t, "", "v1", "secrets", api.Object{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "held", "namespace": "doomed", "finalizers": []any{"example.com/hold"}}})
	// An untouched namespace is left alone.
	env.Create(t, "", "v1", "configmaps", api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "keep", "namespace": "default"}})

	nss := env.Client.Resource("", "v1", "namespaces")
	if _, err := nss.Delete(env.Ctx, "doomed", nil); err != nil {
		t.Fatal(err)
	}
	env.Eventually(t, "contents deleted but the held secret", func() bool {
		return len(env.List(t, "", "v1", "configmaps", "doomed")) == 0 && len(env.List(t, "apps", "v1", "replicasets", "doomed")) == 0
	})
	if _, err := nss.Get(env.Ctx, "doomed"); err != nil {
		t.Fatalf("namespace removed while a secret was held: %v", err)
	}
	env.Modify(t, "", "v1", "secrets", "doomed", held.Name(), func(o api.Object) { o.SetFinalizers(nil) })
	env.Eventually(t, "namespace removed", func() bool {
		_, err := nss.Get(env.Ctx, "doomed")
		return apierrors.IsNotFound(err)
	})
	if _, err := env.Client.Resource("", "v1", "configmaps").Namespace("default").Get(env.Ctx, "keep"); err != nil {
		t.Fatalf("other namespace touched: %v", err)
	}
}
