package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

func deployment(name string, replicas int) api.Object {
	return api.Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": "nginx"}}},
			},
		}}
}

func TestMetadataAndGeneration(t *testing.T) {
	s, cms := setup(t, "m")
	ctx := context.Background()
	got, err := cms.Create(ctx, api.Object{"metadata": map[string]any{"generateName": "gen-"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Name(), "gen-") || len(got.Name()) != len("gen-")+5 || got.UID() == "" ||
		got.ResourceVersion() == "" || got.Meta()["creationTimestamp"] == nil {
		t.Fatalf("server-set metadata missing: %v", got.Meta())
	}

	deps := s.Client.Resource("apps", "v1", "deployments").Namespace("m")
	d, err := deps.Create(ctx, deployment("web", 2))
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation() != 1 {
		t.Fatalf("generation %d after create, want 1", d.Generation())
	}
	// A label change is not a spec change.
	d, err = deps.Patch(ctx, "web", "", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"x":"y"}}}`))
	if err != nil || d.Generation() != 1 {
		t.Fatalf("generation after label patch: %d, %v", d.Generation(), err)
	}
	d, err = deps.Patch(ctx, "web", "", "application/merge-patch+json", []byte(`{"spec":{"replicas":3}}`))
	if err != nil || d.Generation() != 2 {
		t.Fatalf("generation after spec patch: %d, %v", d.Generation(), err)
	}
	// PUT to the main resource ignores status; PUT to /status changes only status.
	d["status"] = map[string]any{"replicas": 7}
	d, err = deps.Update(ctx, d, "")
	if err != nil || api.Nested(d, "status", "replicas") != nil {
		t.Fatalf("main PUT changed status: %v %v", d["status"], err)
	}
	d["status"] = map[string]any{"replicas": 3, "readyReplicas": 1}
	d["spec"].(map[string]any)["replicas"] = 9
	d, err = deps.Update(ctx, d, "status")
	if err != nil {
		t.Fatal(err)
	}
	if api.Int64(api.Nested(d, "status", "readyReplicas")) != 1 || api.Int64(api.Nested(d, "spec", "replicas")) != 3 || d.Generation() != 2 {
		t.Fatalf("status PUT: spec.replicas=%v status=%v generation=%d", api.Nested(d, "spec", "replicas"), d["status"], d.Generation())
	}
	// An update that changes nothing keeps the resourceVersion.
	same, err := deps.Update(ctx, d, "")
	if err != nil || same.ResourceVersion() != d.ResourceVersion() {
		t.Fatalf("no-op update moved resourceVersion %s -> %s (%v)", d.ResourceVersion(), same.ResourceVersion(), err)
	}
}

func TestScaleAndStrategicMergePatch(t *testing.T) {
	s, _ := setup(t, "sc")
	ctx := context.Background()
	deps := s.Client.Resource("apps", "v1", "deployments").Namespace("sc")
	if _, err := deps.Create(ctx, deployment("web", 2)); err != nil {
		t.Fatal(err)
	}
	sc, err := deps.Patch(ctx, "web", "scale", "application/merge-patch+json", []byte(`{"spec":{"replicas":5}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Kind() != "Scale" || sc.APIVersion() != "autoscaling/v1" || api.Int64(api.Nested(sc, "spec", "replicas")) != 5 ||
		api.NestedString(sc, "status", "selector") != "app=web" {
		t.Fatalf("scale: %v", sc)
	}
	d, _ := deps.Get(ctx, "web")
	if api.Int64(api.Nested(d, "spec", "replicas")) != 5 {
		t.Fatalf("scale did not reach spec.replicas: %v", d["spec"])
	}
	if _, err := deps.Patch(ctx, "web", "scale", "application/merge-patch+json", []byte(`{"spec":{"replicas":-1}}`)); apierrors.Code(err) != 422 {
		t.Fatalf("negative scale: got %v, want 422", err)
	}
	// Strategic merge: containers merge by name instead of being replaced.
	d, err = deps.Patch(ctx, "web", "", "application/strategic-merge-patch+json",
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(api.NestedSlice(d, "spec", "template", "spec", "containers")); n != 2 {
		t.Fatalf("strategic merge left %d containers, want 2", n)
	}
	// A merge patch replaces the list.
	d, _ = deps.Patch(ctx, "web", "", "application/merge-patch+json",
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"busybox"}]}}}}`))
	if n := len(api.NestedSlice(d, "spec", "template", "spec", "containers")); n != 1 {
		t.Fatalf("merge patch left %d containers, want 1", n)
	}
	// A strategic merge patch on a kind without Go struct keys would be 415; ConfigMaps have one.
	cms := s.Client.Resource("", "v1", "configmaps").Namespace("sc")
	cms.Create(ctx, configMap("c", map[string]any{"a": "1"}))
	if _, err := cms.Patch(ctx, "c", "", "application/strategic-merge-patch+json", []byte(`{"data":{"b":"2"}}`)); err != nil {
		t.Fatal(err)
	}
}

func TestFinalizersGraceAndPreconditions(t *testing.T) {
	s, cms := setup(t, "f")
	ctx := context.Background()
	o := configMap("held", nil)
	o.Meta()["finalizers"] = []any{"example.com/hold"}
	created, err := cms.Create(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Delete(ctx, "held", map[string]any{"preconditions": map[string]any{"resourceVersion": "1"}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with stale precondition: %v", err)
	}
	marked, err := cms.Delete(ctx, "held", map[string]any{"preconditions": map[string]any{"uid": created.UID()}})
	if err != nil || marked.DeletionTimestamp() == "" {
		t.Fatalf("delete with finalizer should mark, got %v %v", marked, err)
	}
	if _, err := cms.Get(ctx, "held"); err != nil {
		t.Fatalf("object with finalizer was removed: %v", err)
	}
	if _, err := cms.Patch(ctx, "held", "", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "held"); !apierrors.IsNotFound(err) {
		t.Fatalf("removing the last finalizer should delete, got %v", err)
	}

	// dryRun changes nothing.
	if _, err := s.Client.Do(ctx, rawReq("POST", "/api/v1/namespaces/f/configmaps", "dryRun=All", configMap("dry", nil))); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "dry"); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create stored the object: %v", err)
	}

	// A bound pod is deleted gracefully; an unbound one at once; binding twice conflicts.
	pods := s.Client.Resource("", "v1", "pods").Namespace("f")
	for _, name := range []string{"bound", "unbound"} {
		if _, err := pods.Create(ctx, pod(name)); err != nil {
			t.Fatal(err)
		}
	}
	bind := api.Object{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": "bound"}, "target": map[string]any{"kind": "Node", "name": "n1"}}
	if _, err := s.Client.Do(ctx, rawReq("POST", pods.Path("bound", "binding"), "", bind)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Do(ctx, rawReq("POST", pods.Path("bound", "binding"), "", bind)); !apierrors.IsConflict(err) {
		t.Fatalf("second binding: %v, want Conflict", err)
	}
	p, _ := pods.Get(ctx, "bound")
	if api.NestedString(p, "spec", "nodeName") != "n1" {
		t.Fatalf("binding did not set nodeName: %v", p["spec"])
	}
	if _, err := pods.Delete(ctx, "unbound", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "unbound"); !apierrors.IsNotFound(err) {
		t.Fatalf("unbound pod not deleted at once: %v", err)
	}
	p, err = pods.Delete(ctx, "bound", nil)
	if err != nil || p.DeletionTimestamp() == "" || api.Int64(p.Meta()["deletionGracePeriodSeconds"]) != 30 {
		t.Fatalf("bound pod should be marked with grace 30: %v %v", p.Meta(), err)
	}
	if _, err := pods.Delete(ctx, "bound", map[string]any{"gracePeriodSeconds": 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "bound"); !apierrors.IsNotFound(err) {
		t.Fatalf("grace 0 delete did not remove the pod: %v", err)
	}

	// Namespaces are marked Terminating and refuse new content.
	nss := s.Client.Resource("", "v1", "namespaces")
	ns, err := nss.Delete(ctx, "f", nil)
	if err != nil || api.NestedString(ns, "status", "phase") != "Terminating" {
		t.Fatalf("namespace delete: %v %v", ns, err)
	}
	if _, err := cms.Create(ctx, configMap("late", nil)); apierrors.Code(err) != 403 {
		t.Fatalf("create in terminating namespace: %v, want 403", err)
	}
}

func TestDeleteCollectionAndPodFields(t *testing.T) {
	s, _ := setup(t, "dc")
	ctx := context.Background()
	pods := s.Client.Resource("", "v1", "pods").Namespace("dc")
	for _, name := range []string{"a", "b", "c"} {
		if _, err := pods.Create(ctx, pod(name)); err != nil {
			t.Fatal(err)
		}
	}
	bind := api.Object{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": "a"}, "target": map[string]any{"kind": "Node", "name": "n1"}}
	if _, err := s.Client.Do(ctx, rawReq("POST", pods.Path("a", "binding"), "", bind)); err != nil {
		t.Fatal(err)
	}
	onNode, err := s.Client.Resource("", "v1", "pods").List(ctx, clientOpts("", "spec.nodeName=n1"))
	if err != nil || len(onNode.Items) != 1 || onNode.Items[0].Name() != "a" {
		t.Fatalf("pods on n1: %v %v", onNode, err)
	}
	pending, _ := pods.List(ctx, clientOpts("", "status.phase=Pending,spec.nodeName="))
	if len(pending.Items) != 2 {
		t.Fatalf("unbound pending pods: %d, want 2", len(pending.Items))
	}
	if _, err := s.Client.Do(ctx, rawReq("DELETE", pods.Path("", ""), "labelSelector=app+in+(b,c)", nil)); err != nil {
		t.Fatal(err)
	}
	left, _ := pods.List(ctx, clientListAll)
	if len(left.Items) != 1 || left.Items[0].Name() != "a" {
		t.Fatalf("deletecollection by selector left %d pods", len(left.Items))
	}
}
