// Package controllertest holds shared informers, an event recorder and
// helpers for controller integration tests against a hub the test starts
// (with apiserver/apiservertest, which agents/** may import from tests only).
package controllertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Env is a client of a hub, shared informers and an event recorder.
type Env struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Ctx       context.Context
}

// New returns an Env on cli; call Run once controllers are registered.
func New(cli *client.Client) *Env {
	return &Env{Client: cli, Informers: informer.NewFactory(cli, 0, nil),
		Recorder: events.New(events.Config{Client: cli, Component: "test-controller"}), Ctx: context.Background()}
}

// Run starts the informers, the recorder and each run function, and stops
// them at test cleanup.
func (e *Env) Run(t *testing.T, runs ...func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range append(runs, e.Recorder.Run, e.Informers.Run) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r(ctx)
		}()
	}
	t.Cleanup(func() {
		cancel()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("controllers did not stop within 10s")
		}
	})
}

// Create creates o in the given resource and returns the stored object.
func (e *Env) Create(t *testing.T, group, version, resource string, o api.Object) api.Object {
	t.Helper()
	out, err := e.Client.Resource(group, version, resource).Namespace(o.Namespace()).Create(e.Ctx, o)
	if err != nil {
		t.Fatalf("creating %s %s: %v", resource, o.Name(), err)
	}
	return out
}

// List lists a resource in a namespace ("" for all).
func (e *Env) List(t *testing.T, group, version, resource, ns string) []api.Object {
	t.Helper()
	l, err := e.Client.Resource(group, version, resource).Namespace(ns).List(e.Ctx, client.ListOptions{})
	if err != nil {
		t.Fatalf("listing %s: %v", resource, err)
	}
	return l.Items
}

// Eventually waits up to 20s for cond.
func (e *Env) Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	agenttest.Eventually(t, 20*time.Second, what, cond)
}

// ReplicaSet is a ReplicaSet of replicas pods labelled app=name.
func ReplicaSet(ns, name string, replicas int) api.Object {
	return api.Object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": PodTemplate(name)}}
}

// PodTemplate is a pod template labelled app=name.
func PodTemplate(name string) map[string]any {
	return map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}
}

// Modify applies mutate to the current object and updates it, retrying on
// conflicts.
func (e *Env) Modify(t *testing.T, group, version, resource, ns, name string, mutate func(api.Object)) api.Object {
	t.Helper()
	rc := e.Client.Resource(group, version, resource).Namespace(ns)
	for range 20 {
		cur, err := rc.Get(e.Ctx, name)
		if err != nil {
			t.Fatalf("getting %s %s: %v", resource, name, err)
		}
		mutate(cur)
		out, err := rc.Update(e.Ctx, cur, "")
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			t.Fatalf("updating %s %s: %v", resource, name, err)
		}
		return out
	}
	t.Fatalf("updating %s %s: too many conflicts", resource, name)
	return nil
}
