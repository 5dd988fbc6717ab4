package endpoints

import (
	"testing"

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
		b.Run(bc.name, func(b *testing.B) {
			res, _ := reg.Lookup("", bc.version, bc.resource)
			h := New(Config{Registry: reg})
			req := &request{res: res, manager: "bench"}
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
