package registry

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Strategy is the per-kind behaviour of the generic request path.
type Strategy struct {
	Resource *api.Resource
	// HasStatus: the main resource ignores status changes and /status changes only status.
	HasStatus bool
	// TracksGeneration: metadata.generation counts changes to spec.
	TracksGeneration bool
	// PrepareForCreate resets server-owned fields of a new object.
	PrepareForCreate func(o api.Object)
	// Fields returns the values of the kind's own field selectors (beyond metadata.name and metadata.namespace).
	Fields func(o api.Object) map[string]string
	// PatchType returns a new zero value of the Go type whose struct tags give
	// strategic-merge-patch keys; nil means the kind accepts no strategic merge patch.
	PatchType func() any
	// ScaleSelector returns the label selector shown in the scale subresource's status.
	ScaleSelector func(o api.Object) string
}

// strategies caches For's results: a Resource's strategy never changes, and the
// request path asks for it on every request.
var strategies sync.Map // *api.Resource → *Strategy

// For returns the strategy of r. Kinds without special behaviour get a generic one.
func For(r *api.Resource) *Strategy {
	if s, ok := strategies.Load(r); ok {
		return s.(*Strategy)
	}
	s, _ := strategies.LoadOrStore(r, newStrategy(r))
	return s.(*Strategy)
}

func newStrategy(r *api.Resource) *Strategy {
	s := &Strategy{Resource: r, HasStatus: r.HasSubresource("status")}
	switch r.GroupVersion() + "/" + r.Kind {
	case "v1/Pod":
		s.PrepareForCreate = preparePod
		s.Fields = podFields
		s.PatchType = func() any { return &corev1.Pod{} }
	case "v1/Namespace":
		s.PrepareForCreate = prepareNamespace
		s.Fields = func(o api.Object) map[string]string {
			return map[string]string{"status.phase": api.NestedString(o, "status", "phase")}
		}
		s.PatchType = func() any { return &corev1.Namespace{} }
	case "v1/Node":
		s.Fields = func(o api.Object) map[string]string {
			return map[string]string{"spec.unschedulable": boolString(api.Nested(o, "spec", "unschedulable"))}
		}
		s.PatchType = func() any { return &corev1.Node{} }
	case "v1/ConfigMap":
		s.PatchType = func() any { return &corev1.ConfigMap{} }
	case "v1/Secret":
		s.Fields = func(o api.Object) map[string]string { return map[string]string{"type": api.NestedString(o, "type")} }
		s.PatchType = func() any { return &corev1.Secret{} }
	case "v1/Service":
		s.TracksGeneration = true
		s.PrepareForCreate = clearStatus
		s.PatchType = func() any { return &corev1.Service{} }
	case "v1/Endpoints":
		s.PatchType = func() any { return &corev1.Endpoints{} }
	case "v1/Event":
		s.Fields = eventFields
		s.PatchType = func() any { return &corev1.Event{} }
	case "v1/ServiceAccount":
		s.PatchType = func() any { return &corev1.ServiceAccount{} }
	case "apps/v1/Deployment":
		s.TracksGeneration = true
		s.PrepareForCreate = clearStatus
		s.PatchType = func() any { return &appsv1.Deployment{} }
		s.ScaleSelector = matchLabelsSelector
	case "apps/v1/ReplicaSet":
		s.TracksGeneration = true
		s.PrepareForCreate = clearStatus
		s.Fields = func(o api.Object) map[string]string {
			return map[string]string{"status.replicas": api.Int64String(api.Nested(o, "status", "replicas"))}
		}
		s.PatchType = func() any { return &appsv1.ReplicaSet{} }
		s.ScaleSelector = matchLabelsSelector
	case "coordination.k8s.io/v1/Lease":
		s.PatchType = func() any { return &coordinationv1.Lease{} }
	default:
		if len(r.Schema) > 0 { // a custom resource
			s.TracksGeneration = true
			if s.HasStatus {
				s.PrepareForCreate = clearStatus
			}
		}
	}
	return s
}

// FieldSet returns every field-selector value of o.
func (s *Strategy) FieldSet(o api.Object) map[string]string {
	f := map[string]string{"metadata.name": o.Name()}
	if s.Resource.Namespaced {
		f["metadata.namespace"] = o.Namespace()
	}
	if s.Fields != nil {
		for k, v := range s.Fields(o) {
			f[k] = v
		}
	}
	return f
}

// SupportsField reports whether the kind can be filtered on field.
func (s *Strategy) SupportsField(field string) bool {
	if field == "metadata.name" || (field == "metadata.namespace" && s.Resource.Namespaced) {
		return true
	}
	if s.Fields == nil {
		return false
	}
	_, ok := s.Fields(api.Object{})[field]
	return ok
}

func clearStatus(o api.Object) { delete(o, "status") }

func preparePod(o api.Object) {
	o["status"] = map[string]any{"phase": "Pending"}
}

func prepareNamespace(o api.Object) {
	api.SetNested(o, []any{"kubernetes"}, "spec", "finalizers")
	o["status"] = map[string]any{"phase": "Active"}
}

func podFields(o api.Object) map[string]string {
	return map[string]string{
		"spec.nodeName":            api.NestedString(o, "spec", "nodeName"),
		"spec.restartPolicy":       api.NestedString(o, "spec", "restartPolicy"),
		"spec.schedulerName":       api.NestedString(o, "spec", "schedulerName"),
		"spec.serviceAccountName":  api.NestedString(o, "spec", "serviceAccountName"),
		"spec.hostNetwork":         boolString(api.Nested(o, "spec", "hostNetwork")),
		"status.phase":             api.NestedString(o, "status", "phase"),
		"status.podIP":             api.NestedString(o, "status", "podIP"),
		"status.nominatedNodeName": api.NestedString(o, "status", "nominatedNodeName"),
	}
}

func eventFields(o api.Object) map[string]string {
	f := map[string]string{
		"reason":             api.NestedString(o, "reason"),
		"type":               api.NestedString(o, "type"),
		"source":             api.NestedString(o, "source", "component"),
		"reportingComponent": api.NestedString(o, "reportingComponent"),
	}
	for _, k := range []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"} {
		f["involvedObject."+k] = api.NestedString(o, "involvedObject", k)
	}
	return f
}

func boolString(v any) string {
	if b, _ := v.(bool); b {
		return "true"
	}
	return "false"
}
