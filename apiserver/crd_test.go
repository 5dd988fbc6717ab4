package apiserver_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"],"categories":["all"]},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","required":["size"],"properties":{
     "size":{"type":"integer","minimum":1,"maximum":10},
     "color":{"type":"string","enum":["red","blue"],"default":"red"},
     "name":{"type":"string","pattern":"^[a-z]+$"},
     "port":{"x-kubernetes-int-or-string":true},
     "note":{"type":"string","nullable":true},
     "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
    "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}`

// waitFor polls fn until it returns true or 5 s pass.
func waitFor(t *testing.T, what string, fn func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !fn() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCRDLifecycle creates a CRD on one server and uses it through a second
// server on the same etcd: served within a second, schema validation and
// defaulting, pruning, status subresource, conditions, and deletion of its objects.
func TestCRDLifecycle(t *testing.T) {
	s1 := setupServer(t)
	s2 := apiservertest.Start(t, func(c *apiserver.Config) { c.EtcdServers = []string{s1.Etcd.Endpoint} })
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if code, b, _ := rawH(t, s1, "POST", crds, "application/json", widgetCRD); code != 201 {
		t.Fatalf("create CRD: %d %s", code, b)
	}
	const widgets = "/apis/example.com/v1/namespaces/default/widgets"
	start := time.Now()
	for _, s := range []*apiservertest.Server{s1, s2} {
		waitFor(t, "widgets served", func() bool { code, _, _ := rawH(t, s, "GET", widgets, "", ""); return code == 200 })
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("served after %v, want within a second", d)
	}
	waitFor(t, "Established", func() bool {
		_, b, _ := rawH(t, s1, "GET", crds+"/widgets.example.com", "", "")
		return strings.Contains(string(b), `"type":"Established"`) && strings.Contains(string(b), `"type":"NamesAccepted"`)
	})
	if _, b, _ := rawH(t, s2, "GET", "/apis/example.com/v1", "", ""); !strings.Contains(string(b), `"shortNames":["wd"]`) {
		t.Errorf("discovery: %s", b)
	}
	if _, b, _ := rawH(t, s2, "GET", "/openapi/v3/apis/example.com/v1", "", ""); !strings.Contains(string(b), `"x-kubernetes-group-version-kind":[{"group":"example.com","kind":"Widget","version":"v1"}]`) {
		t.Errorf("openapi: %.300s", b)
	}

	// A valid widget: defaults applied, unknown fields pruned (with a warning), preserved ones kept.
	code, b, h := rawH(t, s2, "POST", widgets, "application/json",
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3,"port":"http","note":null,"bogus":1,"extra":{"any":{"thing":1}}},"status":{"ready":true}}`)
	if code != 201 {
		t.Fatalf("create widget: %d %s", code, b)
	}
	var w map[string]any
	json.Unmarshal(b, &w)
	if got := w["spec"]; !reflect.DeepEqual(got, map[string]any{"size": 3.0, "port": "http", "note": nil, "color": "red", "extra": map[string]any{"any": map[string]any{"thing": 1.0}}}) {
		t.Errorf("spec %v", got)
	}
	if w["status"] != nil {
		t.Errorf("status set on create: %v", w["status"])
	}
	if got := h.Values("Warning"); !reflect.DeepEqual(got, []string{`299 - "unknown field \"spec.bogus\""`}) {
		t.Errorf("warnings %q", got)
	}
	if code, b, _ := rawH(t, s1, "PATCH", widgets+"/w1/status", "application/merge-patch+json", `{"status":{"ready":true}}`); code != 200 || !strings.Contains(string(b), `"ready":true`) {
		t.Errorf("status patch: %d %s", code, b)
	}

	for _, tc := range []struct {
		name, spec string
		causes     []cause
	}{
		{"too big", `{"size":11}`, []cause{{"spec.size", "FieldValueInvalid", "Invalid value: 11: must be less than or equal to 10"}}},
		{"missing required", `{"color":"red"}`, []cause{{"spec.size", "FieldValueRequired", "Required value"}}},
		{"enum", `{"size":1,"color":"green"}`, []cause{{"spec.color", "FieldValueNotSupported", `Unsupported value: "green": supported values: "red", "blue"`}}},
		{"pattern", `{"size":1,"name":"Bad1"}`, []cause{{"spec.name", "FieldValueInvalid", `Invalid value: "Bad1": should match '^[a-z]+$'`}}},
		{"wrong type is 422 for a custom resource", `{"size":"three"}`, []cause{{"spec.size", "FieldValueTypeInvalid", `Invalid value: "three": must be of type integer`}}},
		{"int-or-string rejects a bool", `{"size":1,"port":true}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b, _ := rawH(t, s2, "POST", widgets, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"bad"},"spec":`+tc.spec+`}`)
			if code != 422 {
				t.Fatalf("code %d: %s", code, b)
			}
			if tc.causes == nil {
				return
			}
			st := status(t, b)
			var got []cause
			for _, c := range st.Details.Causes {
				got = append(got, cause{c.Field, c.Type, c.Message})
			}
			if !reflect.DeepEqual(got, tc.causes) || st.Details.Kind != "Widget" || st.Details.Group != "example.com" {
				t.Errorf("causes %q (kind %s), want %q", got, st.Details.Kind, tc.causes)
			}
		})
	}

	// Deleting the CRD stops serving it and deletes its objects.
	if code, b, _ := rawH(t, s1, "DELETE", crds+"/widgets.example.com", "", ""); code != 200 {
		t.Fatalf("delete CRD: %d %s", code, b)
	}
	for _, s := range []*apiservertest.Server{s1, s2} {
		waitFor(t, "widgets gone", func() bool { code, _, _ := rawH(t, s, "GET", widgets, "", ""); return code == 404 })
	}
	if code, b, _ := rawH(t, s1, "POST", crds, "application/json", widgetCRD); code != 201 {
		t.Fatalf("re-create CRD: %d %s", code, b)
	}
	waitFor(t, "widgets served again", func() bool { code, _, _ := rawH(t, s2, "GET", widgets, "", ""); return code == 200 })
	if _, b, _ := rawH(t, s2, "GET", widgets, "", ""); !strings.Contains(string(b), `"items":[]`) {
		t.Errorf("objects survived the CRD: %s", b)
	}
}

// TestCRDInvalid checks that bad CRDs are refused with 422.
func TestCRDInvalid(t *testing.T) {
	s := setupServer(t)
	for _, tc := range []struct {
		name, edit string
		want       []cause
	}{
		{"name not plural.group", `{"metadata":{"name":"widget.example.com"}}`, []cause{{"metadata.name", "FieldValueInvalid", `Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group`}}},
		{"bad scope", `{"spec":{"scope":"Global"}}`, []cause{{"spec.scope", "FieldValueNotSupported", `Unsupported value: "Global": supported values: "Cluster", "Namespaced"`}}},
		{"no storage version", `{"spec":{"versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`, []cause{{"spec.versions", "FieldValueInvalid", "Invalid value: 0: must have exactly one version marked as storage version"}}},
		{"two storage versions", `{"spec":{"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`, []cause{{"spec.versions", "FieldValueInvalid", "Invalid value: 2: must have exactly one version marked as storage version"}}},
		{"a version twice", `{"spec":{"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`, []cause{{"spec.versions[1].name", "FieldValueDuplicate", `Duplicate value: "v1"`}}},
		{"schema not an object", `{"spec":{"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"string"}}}]}}`, []cause{{"spec.versions[0].schema.openAPIV3Schema.type", "FieldValueNotSupported", `Unsupported value: "string": supported values: "object"`}}},
		{"group without a dot", `{"metadata":{"name":"widgets.example"},"spec":{"group":"example"}}`, []cause{{"spec.group", "FieldValueInvalid", `Invalid value: "example": should be a domain with at least one dot`}}},
		{"no kind", `{"spec":{"names":{"plural":"widgets","kind":""}}}`, []cause{{"spec.names.kind", "FieldValueRequired", "Required value"}}},
		{"bad schema", `{"spec":{"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"a":{"type":"integer","minimum":"x"}}}}}]}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b, _ := rawH(t, s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", edit(t, widgetCRD, tc.edit))
			if code != 422 {
				t.Fatalf("code %d: %s", code, b)
			}
			if tc.want == nil {
				return
			}
			var got []cause
			for _, c := range status(t, b).Details.Causes {
				got = append(got, cause{c.Field, c.Type, c.Message})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("causes %q, want %q", got, tc.want)
			}
		})
	}
}
