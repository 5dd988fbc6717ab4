package nodelifecycle_test

import (
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/controllers/nodelifecycle"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func TestUnreachableNode(t *testing.T) {
	env := controllertest.New(apiservertest.Start(t).Client)
	c := nodelifecycle.New(nodelifecycle.Config{Client: env.Client, Informers: env.Informers, Recorder: env.Recorder,
		GracePeriod: 700 * time.Millisecond, EvictionTimeout: 500 * time.Millisecond})
	env.Run(t, c.Run)
	env.Create(t, "", "v1", "nodes", api.Object{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n1"}})
	leases := env.Client.Resource("coordination.k8s.io", "v1", "leases").Namespace(nodelifecycle.LeaseNamespace)
	renew := func() {
		t.Helper()
		now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
		if _, err := leases.Get(env.Ctx, "n1"); apierrors.IsNotFound(err) {
			env.Create(t, "coordination.k8s.io", "v1", "leases", api.Object{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
				"metadata": map[string]any{"name": "n1", "namespace": nodelifecycle.LeaseNamespace},
				"spec":     map[string]any{"holderIdentity": "n1", "renewTime": now}})
			return
		}
		env.Modify(t, "coordination.k8s.io", "v1", "leases", nodelifecycle.LeaseNamespace, "n1", func(o api.Object) {
			api.SetNested(o, now, "spec", "renewTime")
		})
	}
	mkPod := func(name string, tolerations []any) {
		env.Create(t, "", "v1", "pods", api.Object{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec": map[string]any{"nodeName": "n1", "tolerations": tolerations,
				"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}})
	}
	tainted := func() bool {
		n, err := env.Client.Resource("", "v1", "nodes").Get(env.Ctx, "n1")
		_, ok := nodelifecycle.UnreachableTaintOf(n)
		return err == nil && ok
	}
	renew()
	mkPod("default-toleration", nil)
	mkPod("forever", []any{map[string]any{"operator": "Exists"}})
	// Renewing keeps the node untainted past the grace period.
	for end := time.Now().Add(1200 * time.Millisecond); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		renew()
		if tainted() {
			t.Fatal("node tainted while its lease is renewed")
		}
	}
	env.Eventually(t, "taint and Ready=Unknown", func() bool {
		n, _ := env.Client.Resource("", "v1", "nodes").Get(env.Ctx, "n1")
		c, _ := meta.Condition(n, "Ready")
		return tainted() && c["status"] == "Unknown"
	})
	pods := env.Client.Resource("", "v1", "pods").Namespace("default")
	// A pod on a node is deleted gracefully: it stays Terminating until its
	// node agent confirms, as in Kubernetes.
	env.Eventually(t, "eviction", func() bool {
		p, err := pods.Get(env.Ctx, "default-toleration")
		return apierrors.IsNotFound(err) || err == nil && meta.Deleting(p)
	})
	if p, err := pods.Get(env.Ctx, "forever"); err != nil || meta.Deleting(p) {
		t.Fatalf("pod tolerating forever was evicted: %v", err)
	}
	renew()
	env.Eventually(t, "taint removed", func() bool { return !tainted() })
}
