package api

import (
	"sort"
	"strings"
	"sync"
)

// Resource describes one kind the hub serves.
type Resource struct {
	Group, Version string
	// Name is the plural resource name used in paths, such as "pods".
	Name, Singular, Kind string
	Namespaced           bool
	ShortNames           []string
	Categories           []string
	// Subresources lists what is served under .../{name}/{sub}: status, scale, binding.
	Subresources []string
	// Verbs are the verbs discovery lists; nil means StandardVerbs.
	Verbs []string
	// Virtual kinds are not stored: their own handler serves their verbs (the
	// auth reviews), so they have no storage, watch or generic endpoints.
	Virtual bool
	// Schema is the JSON Schema document of a custom resource (built from its
	// CRD); built-in kinds leave it empty and use BuiltinSchema.
	Schema []byte
	// PrinterColumns are a custom resource's additionalPrinterColumns.
	PrinterColumns []PrinterColumn
	// StorageVersion is the version a custom resource's objects are stored
	// in. Every served version of a CRD shares the storage, and an object
	// read or written through one version carries that version's apiVersion
	// (conversion strategy None). Built-in kinds leave it empty.
	StorageVersion string
}

// ServedVerbs are the verbs discovery lists for r.
func (r *Resource) ServedVerbs() []string {
	if r.Verbs != nil {
		return r.Verbs
	}
	return StandardVerbs
}

// PrinterColumn is one extra table column of a custom resource.
type PrinterColumn struct {
	Name, Type, Format, Description string
	// JSONPath selects the value, such as .spec.replicas.
	JSONPath string
	Priority int32
}

// StandardVerbs are the verbs every resource supports.
var StandardVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// GroupVersion is "v1" for the core group, else "group/version".
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// ListKind is the kind of a list of r.
func (r *Resource) ListKind() string { return r.Kind + "List" }

// GroupResource is "pods" or "deployments.apps", as Kubernetes messages name a resource.
func (r *Resource) GroupResource() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// HasSubresource reports whether r serves sub.
func (r *Resource) HasSubresource(sub string) bool {
	for _, s := range r.Subresources {
		if s == sub {
			return true
		}
	}
	return false
}

// KeyPrefix is the etcd prefix of every object of r: /registry/<group|core>/<resource>/.
func (r *Resource) KeyPrefix() string {
	g := r.Group
	if g == "" {
		g = "core"
	}
	return "/registry/" + g + "/" + r.Name + "/"
}

// Key is where one object lives: /registry/<group|core>/<resource>/<namespace>/<name>,
// with the namespace segment left out for cluster-scoped kinds.
func (r *Resource) Key(namespace, name string) string {
	if !r.Namespaced {
		return r.KeyPrefix() + name
	}
	return r.KeyPrefix() + namespace + "/" + name
}

// Registry is the set of resources being served. It is safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	resources map[string]*Resource // by group/version/name
}

// NewRegistry returns a registry holding rs.
func NewRegistry(rs ...Resource) *Registry {
	reg := &Registry{resources: map[string]*Resource{}}
	for i := range rs {
		reg.Add(rs[i])
	}
	return reg
}

func regKey(group, version, name string) string { return group + "/" + version + "/" + name }

// Add registers r, replacing any resource of the same group, version and name.
func (reg *Registry) Add(r Resource) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	reg.resources[regKey(r.Group, r.Version, r.Name)] = &r
}

// Remove unregisters the resource of a group, version and plural name.
func (reg *Registry) Remove(group, version, name string) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	delete(reg.resources, regKey(group, version, name))
}

// Lookup finds a resource by group, version and plural name.
func (reg *Registry) Lookup(group, version, name string) (*Resource, bool) {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	r, ok := reg.resources[regKey(group, version, name)]
	return r, ok
}

// All returns every resource, sorted by group, version and name.
func (reg *Registry) All() []*Resource {
	reg.mu.RLock()
	out := make([]*Resource, 0, len(reg.resources))
	for _, r := range reg.resources {
		out = append(out, r)
	}
	reg.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		return strings.Compare(regKey(out[i].Group, out[i].Version, out[i].Name), regKey(out[j].Group, out[j].Version, out[j].Name)) < 0
	})
	return out
}

const rbacGroup = "rbac.authorization.k8s.io"

// review describes a create-only virtual kind of the auth APIs.
func review(group, name, singular, kind string, namespaced bool) Resource {
	return Resource{Group: group, Version: "v1", Name: name, Singular: singular, Kind: kind, Namespaced: namespaced,
		Verbs: []string{"create"}, Virtual: true}
}

// Builtin is every kind Capstan serves out of the box.
func Builtin() []Resource {
	all := []string{"all"}
	return []Resource{
		{Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace", ShortNames: []string{"ns"}, Subresources: []string{"status", "finalize"}},
		{Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Categories: all, Subresources: []string{"status", "binding", "log"}},
		{Version: "v1", Name: "nodes", Singular: "node", Kind: "Node", ShortNames: []string{"no"}, Subresources: []string{"status"}},
		{Version: "v1", Name: "configmaps", Singular: "configmap", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}},
		{Version: "v1", Name: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true},
		{Version: "v1", Name: "services", Singular: "service", Kind: "Service", Namespaced: true, ShortNames: []string{"svc"}, Categories: all, Subresources: []string{"status"}},
		{Version: "v1", Name: "endpoints", Singular: "endpoints", Kind: "Endpoints", Namespaced: true, ShortNames: []string{"ep"}},
		{Version: "v1", Name: "events", Singular: "event", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}},
		{Version: "v1", Name: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount", Namespaced: true, ShortNames: []string{"sa"}, Subresources: []string{"token"}},
		{Group: "apps", Version: "v1", Name: "deployments", Singular: "deployment", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}, Categories: all, Subresources: []string{"status", "scale"}},
		{Group: "apps", Version: "v1", Name: "replicasets", Singular: "replicaset", Kind: "ReplicaSet", Namespaced: true, ShortNames: []string{"rs"}, Categories: all, Subresources: []string{"status", "scale"}},
		{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: "Lease", Namespaced: true},
		{Group: rbacGroup, Version: "v1", Name: "roles", Singular: "role", Kind: "Role", Namespaced: true},
		{Group: rbacGroup, Version: "v1", Name: "clusterroles", Singular: "clusterrole", Kind: "ClusterRole"},
		{Group: rbacGroup, Version: "v1", Name: "rolebindings", Singular: "rolebinding", Kind: "RoleBinding", Namespaced: true},
		{Group: rbacGroup, Version: "v1", Name: "clusterrolebindings", Singular: "clusterrolebinding", Kind: "ClusterRoleBinding"},
		review("authentication.k8s.io", "tokenreviews", "tokenreview", "TokenReview", false),
		review("authentication.k8s.io", "selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview", false),
		review("authorization.k8s.io", "subjectaccessreviews", "subjectaccessreview", "SubjectAccessReview", false),
		review("authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectaccessreview", "SelfSubjectAccessReview", false),
		review("authorization.k8s.io", "localsubjectaccessreviews", "localsubjectaccessreview", "LocalSubjectAccessReview", true),
		review("authorization.k8s.io", "selfsubjectrulesreviews", "selfsubjectrulesreview", "SelfSubjectRulesReview", false),
		{Group: "admissionregistration.k8s.io", Version: "v1", Name: "mutatingwebhookconfigurations", Singular: "mutatingwebhookconfiguration", Kind: "MutatingWebhookConfiguration", Categories: []string{"api-extensions"}},
		{Group: "admissionregistration.k8s.io", Version: "v1", Name: "validatingwebhookconfigurations", Singular: "validatingwebhookconfiguration", Kind: "ValidatingWebhookConfiguration", Categories: []string{"api-extensions"}},
		{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Singular: "customresourcedefinition", Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Subresources: []string{"status"}},
	}
}
