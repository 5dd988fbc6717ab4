package faulttest

import (
	"context"
	"testing"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
)

// ConfigMap is a minimal ConfigMap named name.
func ConfigMap(name string) api.Object {
	return api.Object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name}, "data": map[string]any{"k": name}}
}

// Deployment runs replicas pods of `command` labelled app=name, with a 1s
// termination grace period.
func Deployment(name string, replicas int, command ...string) api.Object {
	labels := map[string]any{"app": name}
	cmd := make([]any, len(command))
	for i, c := range command {
		cmd[i] = c
	}
	return api.Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"terminationGracePeriodSeconds": 1, "containers": []any{map[string]any{
					"name": "main", "image": "busybox", "command": cmd}}}}}}
}

// Names lists rc and returns the names of its objects.
func Names(t testing.TB, rc *client.ResourceClient) map[string]bool {
	t.Helper()
	l, err := rc.List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, o := range l.Items {
		have[api.NestedString(o, "metadata", "name")] = true
	}
	return have
}

// ReadyPods counts app's active pods in the default namespace that are bound
// and ready, in all and by node; -1 if the list fails.
func ReadyPods(ctx context.Context, cli *client.Client, app string) (ready int, byNode map[string]int) {
	l, err := cli.Resource("", "v1", "pods").Namespace("default").List(ctx, client.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return -1, nil
	}
	byNode = map[string]int{}
	for _, p := range l.Items {
		if !meta.PodActive(p) {
			continue
		}
		if ok, _ := meta.PodReady(p); ok && api.NestedString(p, "spec", "nodeName") != "" {
			ready++
			byNode[api.NestedString(p, "spec", "nodeName")]++
		}
	}
	return ready, byNode
}

// LeaseHolder names the holder of the Lease kube-system/name, or "".
func LeaseHolder(ctx context.Context, cli *client.Client, name string) string {
	o, err := cli.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-system").Get(ctx, name)
	if err != nil {
		return ""
	}
	return api.NestedString(o, "spec", "holderIdentity")
}

// NodeReady reports the Node's Ready condition status ("True", "False",
// "Unknown", or "" when it cannot be read).
func NodeReady(ctx context.Context, cli *client.Client, name string) string {
	n, err := cli.Resource("", "v1", "nodes").Get(ctx, name)
	if err != nil {
		return ""
	}
	conds, _ := api.Nested(n, "status", "conditions").([]any)
	for _, c := range conds {
		if c, ok := c.(map[string]any); ok && c["type"] == "Ready" {
			s, _ := c["status"].(string)
			return s
		}
	}
	return ""
}
