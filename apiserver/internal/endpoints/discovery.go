package endpoints

import (
	"net/http"
	"sort"

	"k8s.io/apimachinery/pkg/version"

	"github.com/go-chi/chi/v5"

	"github.com/capstan-io/capstan/apiserver/api"
)

// subresourceDiscoveries is how each subresource appears in discovery.
var subresourceDiscoveries = map[string]api.APIResource{
	"status":   {Verbs: []string{"get", "patch", "update"}},
	"finalize": {Verbs: []string{"update"}},
	"binding":  {Kind: "Binding", Verbs: []string{"create"}},
	"log":      {Verbs: []string{"get"}},
	"scale":    {Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}},
	"token":    {Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest", Verbs: []string{"create"}},
}

// resourceList builds the discovery document of one group version.
func resourceList(reg *api.Registry, group, version string) (api.APIResourceList, bool) {
	out := api.APIResourceList{TypeMeta: api.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, Resources: []api.APIResource{}}
	found := false
	for _, r := range reg.All() {
		if r.Group != group || r.Version != version {
			continue
		}
		found = true
		out.GroupVersion = r.GroupVersion()
		out.Resources = append(out.Resources, api.APIResource{
			Name: r.Name, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: r.ServedVerbs(), ShortNames: r.ShortNames, Categories: r.Categories,
		})
		for _, sub := range r.Subresources {
			d := subresourceDiscoveries[sub]
			d.Name, d.Namespaced = r.Name+"/"+sub, r.Namespaced
			if d.Kind == "" {
				d.Kind = r.Kind
			}
			out.Resources = append(out.Resources, d)
		}
	}
	return out, found
}

// sortVersions orders a group's versions as Kubernetes does, the preferred
// first: GA before beta before alpha, then the higher number (v2, v1, v1beta1).
func sortVersions[T any](vs []T, versionOf func(i int) string) {
	sort.SliceStable(vs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(versionOf(i), versionOf(j)) > 0 })
}

// groups lists the named API groups and their versions.
func groups(reg *api.Registry) []api.APIGroup {
	versions := map[string][]string{}
	for _, r := range reg.All() {
		if r.Group == "" {
			continue
		}
		vs := versions[r.Group]
		if len(vs) == 0 || vs[len(vs)-1] != r.Version {
			versions[r.Group] = append(vs, r.Version)
		}
	}
	names := make([]string, 0, len(versions))
	for g := range versions {
		names = append(names, g)
	}
	sort.Strings(names)
	out := make([]api.APIGroup, 0, len(names))
	for _, g := range names {
		grp := api.APIGroup{TypeMeta: api.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: g}
		vs := versions[g]
		sortVersions(vs, func(i int) string { return vs[i] })
		for _, v := range vs {
			grp.Versions = append(grp.Versions, api.GroupVersionForDiscovery{GroupVersion: g + "/" + v, Version: v})
		}
		grp.PreferredVersion = grp.Versions[0]
		out = append(out, grp)
	}
	return out
}

// APIVersions serves /api.
func (h *Handler) APIVersions(w http.ResponseWriter, r *http.Request) (any, error) {
	if v := aggregatedVersion(r); v != "" {
		return aggregated(h.cfg.Registry, true, v), nil
	}
	return api.APIVersions{
		TypeMeta:                   api.TypeMeta{Kind: "APIVersions"},
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []api.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
	}, nil
}

// APIGroupList serves /apis.
func (h *Handler) APIGroupList(w http.ResponseWriter, r *http.Request) (any, error) {
	if v := aggregatedVersion(r); v != "" {
		return aggregated(h.cfg.Registry, false, v), nil
	}
	return api.APIGroupList{TypeMeta: api.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: groups(h.cfg.Registry)}, nil
}

// APIGroup serves /apis/{group}.
func (h *Handler) APIGroup(w http.ResponseWriter, r *http.Request) (any, error) {
	name := chi.URLParam(r, "group")
	for _, g := range groups(h.cfg.Registry) {
		if g.Name == name {
			return g, nil
		}
	}
	return nil, notFoundPath()
}

// CoreResources serves /api/v1.
func (h *Handler) CoreResources(w http.ResponseWriter, r *http.Request) (any, error) {
	l, _ := resourceList(h.cfg.Registry, "", "v1")
	return l, nil
}

// GroupResources serves /apis/{group}/{version}.
func (h *Handler) GroupResources(w http.ResponseWriter, r *http.Request) (any, error) {
	l, ok := resourceList(h.cfg.Registry, chi.URLParam(r, "group"), chi.URLParam(r, "version"))
	if !ok {
		return nil, notFoundPath()
	}
	return l, nil
}
