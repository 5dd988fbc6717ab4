package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

func TestDiscovery(t *testing.T) {
	s := setupServer(t)
	ctx := context.Background()
	get := func(path, accept string) ([]byte, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := s.Client.HTTPClient().Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", path, resp, err)
		}
		defer resp.Body.Close()
		var raw json.RawMessage
		json.NewDecoder(resp.Body).Decode(&raw)
		return raw, resp.Header.Get("Content-Type")
	}

	var core api.APIResourceList
	b, _ := get("/api/v1", "")
	json.Unmarshal(b, &core)
	want := map[string][]string{"pods": {"po"}, "nodes": {"no"}, "namespaces": {"ns"}, "configmaps": {"cm"}, "services": {"svc"},
		"endpoints": {"ep"}, "events": {"ev"}, "serviceaccounts": {"sa"}}
	found := map[string]bool{}
	for _, r := range core.Resources {
		if sn, ok := want[r.Name]; ok {
			found[r.Name] = true
			if !slices.Equal(r.ShortNames, sn) || len(r.Verbs) != 8 {
				t.Errorf("%s: shortNames %v verbs %v", r.Name, r.ShortNames, r.Verbs)
			}
		}
		if r.Name == "pods" && (!r.Namespaced || !slices.Contains(r.Categories, "all")) {
			t.Errorf("pods: namespaced %v categories %v", r.Namespaced, r.Categories)
		}
		if r.Name == "nodes" && r.Namespaced {
			t.Error("nodes must be cluster-scoped")
		}
	}
	if len(found) != len(want) {
		t.Fatalf("core resources found %v", found)
	}
	var apps api.APIResourceList
	b, _ = get("/apis/apps/v1", "")
	json.Unmarshal(b, &apps)
	var subs []string
	for _, r := range apps.Resources {
		subs = append(subs, r.Name)
	}
	for _, n := range []string{"deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status"} {
		if !slices.Contains(subs, n) {
			t.Errorf("apps/v1 lacks %s (has %v)", n, subs)
		}
	}

	const agg = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
	b, ct := get("/apis", agg)
	if ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("aggregated content type %q", ct)
	}
	var list struct {
		Kind  string `json:"kind"`
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Versions []struct {
				Version   string `json:"version"`
				Resources []struct {
					Resource     string `json:"resource"`
					Scope        string `json:"scope"`
					Subresources []struct {
						Subresource  string            `json:"subresource"`
						ResponseKind map[string]string `json:"responseKind"`
					} `json:"subresources"`
				} `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	json.Unmarshal(b, &list)
	scaleKind := ""
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				for _, sr := range r.Subresources {
					if g.Metadata.Name == "apps" && r.Resource == "deployments" && sr.Subresource == "scale" {
						scaleKind = sr.ResponseKind["group"] + "/" + sr.ResponseKind["version"] + "/" + sr.ResponseKind["kind"]
					}
				}
			}
		}
	}
	if list.Kind != "APIGroupDiscoveryList" || scaleKind != "autoscaling/v1/Scale" {
		t.Fatalf("aggregated /apis: kind %s, deployments/scale kind %q", list.Kind, scaleKind)
	}
	b, _ = get("/api", agg)
	json.Unmarshal(b, &list)
	if len(list.Items) != 1 || list.Items[0].Metadata.Name != "" || len(list.Items[0].Versions[0].Resources) != 9 {
		t.Fatalf("aggregated /api: %s", b)
	}
	if _, ct := get("/api", ""); ct != "application/json" {
		t.Fatalf("legacy /api content type %q", ct)
	}
}
