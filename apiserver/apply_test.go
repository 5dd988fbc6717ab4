package apiserver_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestServerSideApply: apply creates, a second manager changing an owned
// field gets 409 naming the field and the manager, force takes ownership, and
// a field dropped from a manager's configuration is removed.
func TestServerSideApply(t *testing.T) {
	s := setupServer(t)
	const path = "/apis/apps/v1/namespaces/default/deployments/ssa"
	const yamlType = "application/apply-patch+yaml"
	manifest := func(replicas, env string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ssa}
spec:
  replicas: ` + replicas + `
  selector: {matchLabels: {app: ssa}}
  template:
    metadata: {labels: {app: ssa}}
    spec:
      containers:
      - name: a
        image: nginx
        env: [` + env + `]
`
	}
	get := func() map[string]any {
		t.Helper()
		_, b, _ := rawH(t, s, "GET", path, "", "")
		var o map[string]any
		json.Unmarshal(b, &o)
		return o
	}
	if code, b, _ := rawH(t, s, "PATCH", path+"?fieldManager=alice", yamlType, manifest("2", `{name: A, value: "1"}, {name: B, value: "2"}`)); code != 201 {
		t.Fatalf("first apply: %d %s", code, b)
	}
	if code, b, _ := rawH(t, s, "PATCH", path, yamlType, manifest("2", "")); code != 400 {
		t.Errorf("apply without fieldManager: %d %s", code, b)
	}
	code, b, _ := rawH(t, s, "PATCH", path+"?fieldManager=bob", yamlType, manifest("3", `{name: A, value: "1"}`))
	st := status(t, b)
	if code != 409 || st.Reason != "Conflict" || st.Message != `Apply failed with 1 conflict: conflict with "alice": .spec.replicas` ||
		st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != ".spec.replicas" {
		t.Fatalf("conflict: %d %s", code, b)
	}
	if code, b, _ := rawH(t, s, "PATCH", path+"?fieldManager=bob&force=true", yamlType, manifest("3", `{name: A, value: "1"}`)); code != 200 {
		t.Fatalf("forced apply: %d %s", code, b)
	}
	if r := dig(get(), "spec.replicas"); r != 3.0 {
		t.Errorf("replicas %v after forced apply", r)
	}
	// alice drops B (she owns it alone) and stops setting replicas (now bob's).
	m := manifest("0", `{name: A, value: "1"}`)
	m = m[:len("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ssa}\nspec:\n")] + m[len("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ssa}\nspec:\n  replicas: 0\n"):]
	if code, b, _ := rawH(t, s, "PATCH", path+"?fieldManager=alice", yamlType, m); code != 200 {
		t.Fatalf("alice again: %d %s", code, b)
	}
	o := get()
	if env := dig(o, "spec.template.spec.containers.0.env"); !reflect.DeepEqual(env, []any{map[string]any{"name": "A", "value": "1"}}) {
		t.Errorf("env %v, want only A", env)
	}
	var managers []string
	for _, e := range dig(o, "metadata.managedFields").([]any) {
		managers = append(managers, e.(map[string]any)["manager"].(string))
	}
	// Entries are ordered by operation, then time in seconds, then manager,
	// as Kubernetes orders them: the order depends on the clock.
	slices.Sort(managers)
	if !reflect.DeepEqual(managers, []string{"alice", "bob"}) {
		t.Errorf("managers %v", managers)
	}
}
