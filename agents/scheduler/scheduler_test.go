package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/leaderelection"
	"github.com/capstan-io/capstan/agents/scheduler"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

func makeNode(t *testing.T, ctx context.Context, cli *client.Client, name, memory string, labels map[string]any, taints []any) {
	t.Helper()
	n := api.Object{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name, "labels": labels},
		"spec":     map[string]any{"taints": taints},
	}
	nodes := cli.Resource("", "v1", "nodes")
	created, err := nodes.Create(ctx, n)
	if err != nil {
		t.Fatalf("creating node %s: %v", name, err)
	}
	created["status"] = map[string]any{
		"allocatable": map[string]any{"cpu": "4", "memory": memory, "pods": "110"},
		"capacity":    map[string]any{"cpu": "4", "memory": memory, "pods": "110"},
		"conditions":  []any{map[string]any{"type": "Ready", "status": "True"}},
	}
	if _, err := nodes.Update(ctx, created, "status"); err != nil {
		t.Fatalf("node %s status: %v", name, err)
	}
}

func makePod(t *testing.T, ctx context.Context, cli *client.Client, name, memory string, spec map[string]any) {
	t.Helper()
	if spec == nil {
		spec = map[string]any{}
	}
	spec["containers"] = []any{map[string]any{"name": "c", "image": "busybox",
		"resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": memory}}}}
	p := api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec}
	if _, err := cli.Resource("", "v1", "pods").Namespace("default").Create(ctx, p); err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
}

// waitPod polls pod name until cond holds and returns it.
func waitPod(t *testing.T, ctx context.Context, cli *client.Client, name, what string, cond func(api.Object) bool) api.Object {
	t.Helper()
	var last api.Object
	agenttest.Eventually(t, 15*time.Second, "pod "+name+": "+what, func() bool {
		o, err := cli.Resource("", "v1", "pods").Namespace("default").Get(ctx, name)
		if err == nil {
			last = o
		}
		return err == nil && cond(o)
	})
	return last
}

// createUnschedulable creates a pod that fits nowhere and checks its
// PodScheduled condition carries want.
func createUnschedulable(t *testing.T, ctx context.Context, cli *client.Client, name, memory, want string) {
	t.Helper()
	makePod(t, ctx, cli, name, memory, nil)
	o := waitPod(t, ctx, cli, name, "Unschedulable condition", func(o api.Object) bool { return unschedulableMessage(o) != "" })
	if got := unschedulableMessage(o); got != want {
		t.Fatalf("message = %q\nwant      %q", got, want)
	}
}

func nodeName(o api.Object) string { return api.NestedString(o, "spec", "nodeName") }

func bound(o api.Object) bool { return nodeName(o) != "" }

func unschedulableMessage(o api.Object) string {
	for _, c := range api.NestedSlice(o, "status", "conditions") {
		m, _ := c.(map[string]any)
		if m["type"] == "PodScheduled" && m["status"] == "False" && m["reason"] == "Unschedulable" {
			s, _ := m["message"].(string)
			return s
		}
	}
	return ""
}

func TestScheduler(t *testing.T) {
	hub := apiservertest.Start(t)
	cli := hub.Client
	ctx, cancel := context.WithCancel(context.Background())
	gpu := []any{map[string]any{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}}
	makeNode(t, ctx, cli, "small-1", "1Gi", map[string]any{"zone": "a"}, nil)
	makeNode(t, ctx, cli, "small-2", "1Gi", map[string]any{"zone": "b"}, nil)
	makeNode(t, ctx, cli, "gpu", "16Gi", map[string]any{"zone": "c", "accelerator": "gpu"}, gpu)

	s, err := scheduler.New(scheduler.Config{Client: cli, Options: leaderelection.Options{LeaderElect: true, LeaseNamespace: "default",
		LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 200 * time.Millisecond},
		RetryBase: 50 * time.Millisecond, RetryMax: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("scheduler did not stop")
		}
	}()

	t.Run("plain pods land on untainted nodes", func(t *testing.T) {
		for _, n := range []string{"web-1", "web-2"} {
			makePod(t, ctx, cli, n, "64Mi", nil)
		}
		for _, n := range []string{"web-1", "web-2"} {
			if got := nodeName(waitPod(t, ctx, cli, n, "binding", bound)); got == "gpu" {
				t.Errorf("%s landed on the tainted node", n)
			}
		}
	})
	t.Run("toleration and nodeSelector reach the tainted node", func(t *testing.T) {
		makePod(t, ctx, cli, "trainer", "64Mi", map[string]any{
			"nodeSelector": map[string]any{"accelerator": "gpu"},
			"tolerations":  []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}},
		})
		if got := nodeName(waitPod(t, ctx, cli, "trainer", "binding", bound)); got != "gpu" {
			t.Errorf("trainer on %q, want gpu", got)
		}
	})
	t.Run("required affinity picks the zone", func(t *testing.T) {
		makePod(t, ctx, cli, "zonal", "64Mi", map[string]any{"affinity": map[string]any{"nodeAffinity": map[string]any{
			"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{map[string]any{
				"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"b"}}}}}}}}})
		if got := nodeName(waitPod(t, ctx, cli, "zonal", "binding", bound)); got != "small-2" {
			t.Errorf("zonal on %q, want small-2", got)
		}
	})
	t.Run("unschedulable explains itself and is retried when a node appears", func(t *testing.T) {
		const want = "0/3 nodes are available: 2 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}."
		createUnschedulable(t, ctx, cli, "big", "2Gi", want)
		waitEvent(t, ctx, cli, "big", "FailedScheduling", want)
		// Not a hot loop: with nothing changing (its own status write included),
		// the pod is not tried again.
		<-time.After(500 * time.Millisecond)
		if n := eventCount(t, ctx, cli, "big", "FailedScheduling"); n != 1 {
			t.Fatalf("FailedScheduling count = %d after 500ms of no changes, want 1", n)
		}
		makeNode(t, ctx, cli, "large", "8Gi", nil, nil)
		if got := nodeName(waitPod(t, ctx, cli, "big", "binding after a node was added", bound)); got != "large" {
			t.Errorf("big on %q, want large", got)
		}
	})
	t.Run("deleting a bound pod retries a waiting one", func(t *testing.T) {
		const want = "0/4 nodes are available: 3 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}."
		createUnschedulable(t, ctx, cli, "bigger", "7Gi", want)
		if _, err := cli.Resource("", "v1", "pods").Namespace("default").Delete(ctx, "big", map[string]any{"gracePeriodSeconds": 0}); err != nil {
			t.Fatal(err)
		}
		if got := nodeName(waitPod(t, ctx, cli, "bigger", "binding after big was deleted", bound)); got != "large" {
			t.Errorf("bigger on %q, want large", got)
		}
	})
}

func waitEvent(t *testing.T, ctx context.Context, cli *client.Client, pod, reason, message string) {
	t.Helper()
	agenttest.Eventually(t, 10*time.Second, reason+" event for "+pod, func() bool {
		l, err := cli.Resource("", "v1", "events").Namespace("default").List(ctx, client.ListOptions{})
		if err != nil {
			return false
		}
		for _, ev := range l.Items {
			if api.NestedString(ev, "involvedObject", "name") == pod && ev["reason"] == reason && ev["message"] == message && ev["type"] == "Warning" {
				return true
			}
		}
		return false
	})
}

func eventCount(t *testing.T, ctx context.Context, cli *client.Client, pod, reason string) int64 {
	t.Helper()
	l, err := cli.Resource("", "v1", "events").Namespace("default").List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, ev := range l.Items {
		if api.NestedString(ev, "involvedObject", "name") == pod && ev["reason"] == reason {
			n += api.Int64(ev["count"])
		}
	}
	return n
}
