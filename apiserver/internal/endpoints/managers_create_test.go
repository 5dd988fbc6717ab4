package endpoints

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
)

// TestTrackCreateMatchesFieldManager: a create's managedFields from the fast
// path are what Kubernetes' field manager records when it compares the new
// object with an empty one, for kinds with maps, keyed lists, sets and
// atomic lists, a custom resource, and an object with no recordable field.
func TestTrackCreateMatchesFieldManager(t *testing.T) {
	var crdSchema map[string]any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
			"size":{"type":"integer"},
			"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
			"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
			"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
			"endpoints":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","protocol"],"items":{"type":"object","properties":{"name":{"type":"string"},"protocol":{"type":"string","default":"TCP"},"port":{"type":"integer"}}}},
			"numbers":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"number"}},
			"whole":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"a":{"type":"string"},"b":{"type":"string"}}},
			"pinned":{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"object","properties":{"x":{"type":"string"}}}},
			"optional":{"type":"object","nullable":true,"properties":{"x":{"type":"string"}}},
			"empty":{"type":"array","items":{"type":"string"}},
			"amount":{"x-kubernetes-int-or-string":true}}}}}`), &crdSchema); err != nil {
		t.Fatal(err)
	}
	doc, err := schema.FromCRD(crdSchema, "example.com", "v1", "Widget")
	if err != nil {
		t.Fatal(err)
	}
	crd := api.Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true, Schema: doc}
	reg := api.NewRegistry(append(api.Builtin(), crd)...)
	now := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	h := New(Config{Registry: reg, Now: func() time.Time { return now }})
	for _, tc := range []struct {
		name, group, version, resource, body string
	}{
		{"configmap", "", "v1", "configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d","uid":"u","creationTimestamp":"2026-11-30T00:00:00Z","labels":{"a":"b"},"annotations":{"x":"y"}},"data":{"k":"v","k2":"v2"},"binaryData":{"b":"AA=="}}`},
		{"configmap with empty maps and last-applied", "", "v1", "configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d","labels":{},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"data":{}}`},
		{"empty configmap", "", "v1", "configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d","generation":1}}`},
		{"pod", "", "v1", "pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d","finalizers":["a/b","c/d"],"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"123","controller":true}]},
			"spec":{"restartPolicy":"Always","nodeSelector":{"k":"v"},"containers":[{"name":"c","image":"busybox","command":["sleep","3600"],"ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":53,"protocol":"UDP"}],"env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],"resources":{"limits":{"memory":"32Mi","cpu":"100m"}}},{"name":"d","image":"x"}],
			"tolerations":[{"key":"k","operator":"Exists"}]},"status":{"phase":"Pending"}}`},
		{"deployment", "apps", "v1", "deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"d"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]},
			"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`},
		{"service", "", "v1", "services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"d"},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"},{"name":"dns","port":53,"protocol":"UDP"}]}}`},
		{"node", "", "v1", "nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"}],"capacity":{"cpu":"2"}}}`},
		{"role", "rbac.authorization.k8s.io", "v1", "roles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r","namespace":"d"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`},
		{"custom resource", "example.com", "v1", "widgets", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"d"},"spec":{"size":3,"ports":[{"name":"a","port":1},{"name":"b","port":2}],"tags":["x","y"],"free":{"any":{"thing":[1,2]}}}}`},
		{"custom resource, keys with defaults, sets of numbers, atomic parts, null", "example.com", "v1", "widgets", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"d","labels":{"a\"b":"1","ü/ß":"2","x<y>&z":"3"}},
			"spec":{"endpoints":[{"name":"a","port":1},{"name":"a","protocol":"UDP","port":2},{"name":"b","protocol":"TCP"}],"numbers":[1,2.5,-3,1e3],"whole":{"a":"1","b":"2"},"pinned":[{"x":"1"},{"x":"1"}],"optional":null,"empty":[],"amount":"25%","free":{"n":1.5,"l":[{"k":"v"}],"m":{"deep":{"er":true}}}}}`},
		{"pod with Go numbers", "", "v1", "pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d"},"spec":{"terminationGracePeriodSeconds":30,"containers":[{"name":"c","image":"a","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}`},
		{"pod with duplicate container names", "", "v1", "pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d"},"spec":{"containers":[{"name":"c","image":"a"},{"name":"c","image":"b"},{"name":"e","image":"c"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok := reg.Lookup(tc.group, tc.version, tc.resource)
			if !ok {
				t.Fatalf("no resource %s", tc.resource)
			}
			req := &request{RequestInfo: &RequestInfo{}, res: res, manager: "kubectl-create"}
			fast, err := api.Decode([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tc.name, "Go numbers") { // as defaulting code sets them
				fast = api.Object(goNumbers(map[string]any(fast)).(map[string]any))
			}
			slow := api.Object(api.DeepCopyValue(map[string]any(fast)).(map[string]any))
			fm, err := fieldManager(res, "")
			if err != nil {
				t.Fatal(err)
			}
			if done, err := h.trackCreate(req, fm, fast); !done || err != nil {
				t.Fatalf("fast path: done %v, %v", done, err)
			}
			// An explicit empty object takes the field manager's comparison.
			empty := api.Object{"apiVersion": res.GroupVersion(), "kind": res.Kind, "metadata": map[string]any{}}
			if err := h.trackUpdate(req, empty, slow); err != nil {
				t.Fatalf("field manager: %v", err)
			}
			got, want := managedFieldsJSON(t, fast), managedFieldsJSON(t, slow)
			if got != want {
				t.Errorf("fast path managedFields\n%s\nfield manager's\n%s", got, want)
			}
			if tc.name != "empty configmap" && got == "null" {
				t.Error("no managedFields recorded")
			}
		})
	}
}

// managedFieldsJSON encodes o's managedFields with each entry's time blanked.
func managedFieldsJSON(t *testing.T, o api.Object) string {
	t.Helper()
	mf := api.NestedSlice(o, "metadata", "managedFields")
	for _, e := range mf {
		if m, ok := e.(map[string]any); ok {
			if m["time"] == nil || m["time"] == "" {
				t.Errorf("entry without time: %v", m)
			}
			m["time"] = "-"
		}
	}
	// Encode, decode and encode again, so fields a path left encoded are
	// compared in the same key order as decoded ones.
	b, err := json.Marshal(mf)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if b, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTrackCreateLeavesUnmodelled: objects the fast path does not model as
// structured-merge-diff would (unknown fields, values of the wrong type) are
// left to the field manager, and the write goes on.
func TestTrackCreateLeavesUnmodelled(t *testing.T) {
	reg := api.NewRegistry(api.Builtin()...)
	h := New(Config{Registry: reg})
	res, _ := reg.Lookup("", "v1", "configmaps")
	req := &request{RequestInfo: &RequestInfo{}, res: res, manager: "m"}
	fm, err := fieldManager(res, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"colour":"red"}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":7}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"immutable":"yes"}`,
	} {
		o, err := api.Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if done, err := h.trackCreate(req, fm, o); done || err != nil {
			t.Errorf("%s: done %v, %v; want it left to the field manager", body, done, err)
		}
		if err := h.trackUpdate(req, nil, o); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// goNumbers turns a decoded value's json.Numbers into int or float64.
func goNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = goNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = goNumbers(x)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i)
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
