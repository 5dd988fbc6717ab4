package endpoints

import (
	"mime"
	"net/http"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Aggregated discovery (apidiscovery.k8s.io/v2): kubectl asks /api and /apis
// for every group version's resources in one document instead of one request
// per group version.

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type subresourceDiscovery struct {
	Subresource  string   `json:"subresource"`
	ResponseKind *gvk     `json:"responseKind,omitempty"`
	Verbs        []string `json:"verbs"`
}

type resourceDiscovery struct {
	Resource         string                 `json:"resource"`
	ResponseKind     *gvk                   `json:"responseKind,omitempty"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []subresourceDiscovery `json:"subresources,omitempty"`
}

type versionDiscovery struct {
	Version   string              `json:"version"`
	Resources []resourceDiscovery `json:"resources"`
	Freshness string              `json:"freshness"`
}

type groupDiscovery struct {
	Metadata map[string]string  `json:"metadata"`
	Versions []versionDiscovery `json:"versions"`
}

type groupDiscoveryList struct {
	api.TypeMeta `json:",inline"`
	Metadata     struct{}         `json:"metadata"`
	Items        []groupDiscovery `json:"items"`
}

// aggregatedVersion returns "v2" or "v2beta1" when the client accepts aggregated discovery.
func aggregatedVersion(r *http.Request) string {
	for _, clause := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, p, err := mime.ParseMediaType(strings.TrimSpace(clause))
		if err == nil && mt == "application/json" && p["g"] == "apidiscovery.k8s.io" && p["as"] == "APIGroupDiscoveryList" &&
			(p["v"] == "v2" || p["v"] == "v2beta1") {
			return p["v"]
		}
	}
	return ""
}

// aggregated builds the document for the core group (core) or every named group.
func aggregated(reg *api.Registry, core bool, version string) typedJSON {
	list := groupDiscoveryList{TypeMeta: api.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/" + version}, Items: []groupDiscovery{}}
	index := map[string]int{}
	for _, r := range reg.All() {
		if (r.Group == "") != core {
			continue
		}
		gi, ok := index[r.Group]
		if !ok {
			gi = len(list.Items)
			index[r.Group] = gi
			list.Items = append(list.Items, groupDiscovery{Metadata: map[string]string{"name": r.Group}})
		}
		g := &list.Items[gi]
		if len(g.Versions) == 0 || g.Versions[len(g.Versions)-1].Version != r.Version {
			g.Versions = append(g.Versions, versionDiscovery{Version: r.Version, Freshness: "Current"})
		}
		v := &g.Versions[len(g.Versions)-1]
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		rd := resourceDiscovery{Resource: r.Name, ResponseKind: &gvk{r.Group, r.Version, r.Kind}, Scope: scope,
			SingularResource: r.Singular, Verbs: r.ServedVerbs(), ShortNames: r.ShortNames, Categories: r.Categories}
		for _, sub := range r.Subresources {
			d := subresourceDiscoveries[sub]
			sd := subresourceDiscovery{Subresource: sub, Verbs: d.Verbs, ResponseKind: &gvk{r.Group, r.Version, r.Kind}}
			if d.Kind != "" {
				sd.ResponseKind = &gvk{d.Group, d.Version, d.Kind}
			}
			rd.Subresources = append(rd.Subresources, sd)
		}
		v.Resources = append(v.Resources, rd)
	}
	for i := range list.Items {
		vs := list.Items[i].Versions
		sortVersions(vs, func(i int) string { return vs[i].Version })
	}
	return typedJSON{
		contentType: "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList",
		body:        list,
	}
}
