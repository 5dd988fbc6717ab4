package endpoints

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capstan-io/capstan/apiserver/api"
)

// BenchmarkTrackUpdate measures what recording an Update manager adds to a
// write: a pod whose container image changes, and a configmap whose data does.
func BenchmarkTrackUpdate(b *testing.B) {
	reg := api.NewRegistry(api.Builtin()...)
	for _, bc := range []struct {
		name, version, resource string
		obj                     func(v string) api.Object
	}{
		{"pod", "v1", "pods", func(v string) api.Object {
			return api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default", "labels": map[string]any{"app": "p"}},
				"spec": map[string]any{"restartPolicy": "Always", "containers": []any{map[string]any{"name": "c", "image": "nginx:" + v, "ports": []any{map[string]any{"containerPort": 80, "protocol": "TCP"}}}}}}
		}},
		{"configmap", "v1", "configmaps", func(v string) api.Object {
			return api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "default"}, "data": map[string]any{"k": v}}
		}},
	} {
		// A create, by the fast path and by the field manager's comparison
		// with an empty object (what the fast path replaces).
		for _, via := range []string{"", "-via-field-manager"} {
			b.Run(bc.name+"/create"+via, func(b *testing.B) {
				res, _ := reg.Lookup("", bc.version, bc.resource)
				h := New(Config{Registry: reg})
				req := &request{RequestInfo: &RequestInfo{}, res: res, manager: "bench"}
				for range b.N {
					var cur api.Object
					if via != "" {
						cur = api.Object{"apiVersion": res.GroupVersion(), "kind": res.Kind, "metadata": map[string]any{}}
					}
					if err := h.trackUpdate(req, cur, bc.obj("1")); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(bc.name+"/update", func(b *testing.B) {
			res, _ := reg.Lookup("", bc.version, bc.resource)
			h := New(Config{Registry: reg})
			req := &request{RequestInfo: &RequestInfo{}, res: res, manager: "bench"}
			cur := bc.obj("1")
			if err := h.trackUpdate(req, nil, cur); err != nil {
				b.Fatal(err)
			}
			if len(api.NestedSlice(cur, "metadata", "managedFields")) != 1 {
				b.Fatalf("no managedFields: %v", cur.Meta())
			}
			b.ResetTimer()
			for range b.N {
				next := bc.obj("2")
				next.Meta()["managedFields"] = api.DeepCopyValue(cur.Meta()["managedFields"])
				if err := h.trackUpdate(req, cur, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestUnstructuredValue: the direct conversion gives what unstructured's
// JSON decoding gives, and declines types a JSON decoder does not make.
func TestUnstructuredValue(t *testing.T) {
	o, err := api.Decode([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
		"spec":{"replicas":3,"ratio":0.5,"big":12345678901234,"neg":-7,"on":true,"none":null,"list":[1,"x",[2.5],{"k":[]}],"empty":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := toUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o)
	want := &unstructured.Unstructured{}
	if err := want.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Object, want.Object) {
		t.Errorf("direct conversion\n%#v\nJSON round trip\n%#v", got.Object, want.Object)
	}
	if _, ok := unstructuredValue(map[string]any{"n": 3}); ok {
		t.Error("an int (not made by a JSON decoder) was converted; want the JSON fallback")
	}
	u, err := toUnstructured(api.Object{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{"n": 3}})
	if err != nil || u.Object["spec"].(map[string]any)["n"] != int64(3) {
		t.Errorf("fallback: %v %v", u, err)
	}
}
