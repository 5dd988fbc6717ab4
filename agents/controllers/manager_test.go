package controllers_test

import (
	"context"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/controllers"
	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/leaderelection"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

func TestMain(m *testing.M) { agenttest.Main(m) }

// TestManager runs the manager under leader election and checks that it
// holds the Lease, runs the enabled controllers and not the disabled ones,
// and stops when its context ends.
func TestManager(t *testing.T) {
	hub := apiservertest.Start(t)
	m, err := controllers.New(controllers.Config{Client: hub.Client, Controllers: []string{"*", "-serviceaccount"},
		Options: leaderelection.Options{LeaderElect: true, Identity: "me", LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- m.Run(ctx) }()
	env := controllertest.New(hub.Client)
	env.Create(t, "apps", "v1", "replicasets", controllertest.ReplicaSet("default", "web", 2))
	agenttest.Eventually(t, 20*time.Second, "lease held and pods created", func() bool {
		l, err := hub.Client.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-system").Get(env.Ctx, "capstan-controller-manager")
		pods := env.List(t, "", "v1", "pods", "default")
		return err == nil && api.NestedString(l, "spec", "holderIdentity") == "me" && len(pods) == 2
	})
	env.Create(t, "", "v1", "namespaces", api.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "quiet"}})
	time.Sleep(300 * time.Millisecond) // the disabled serviceaccount controller would act by now
	if sas := env.List(t, "", "v1", "serviceaccounts", "quiet"); len(sas) != 0 {
		t.Errorf("disabled serviceaccount controller created %d accounts", len(sas))
	}
	cancel()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestNewRejectsUnknownController(t *testing.T) {
	if _, err := controllers.New(controllers.Config{Client: &client.Client{}, Controllers: []string{"nope"}}); err == nil {
		t.Fatal("unknown controller accepted")
	}
}
