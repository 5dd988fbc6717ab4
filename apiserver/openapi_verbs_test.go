package apiserver_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestOpenAPIPublishesServedVerbs checks that /openapi/v3 and /openapi/v2 list
// only the operations the hub serves: the review kinds only POST to their
// collection (no item path, no GET, PUT or DELETE), and every method the v3
// document publishes for them is answered by something other than 405, while
// the ones it leaves out are 405.
func TestOpenAPIPublishesServedVerbs(t *testing.T) {
	s := setupServer(t)
	methods := func(item map[string]any) []string {
		var out []string
		for m := range item {
			if m != "parameters" {
				out = append(out, m)
			}
		}
		sort.Strings(out)
		return out
	}
	docPaths := func(path string) map[string]map[string]any {
		t.Helper()
		code, b, _ := rawH(t, s, "GET", path, "", "")
		if code != 200 {
			t.Fatalf("GET %s: %d %s", path, code, b)
		}
		var doc struct {
			Paths map[string]map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Paths
	}
	for _, tc := range []struct {
		doc, path string
		want      []string // nil: the path is absent
	}{
		{"/openapi/v3/apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/subjectaccessreviews", []string{"post"}},
		{"/openapi/v3/apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/subjectaccessreviews/{name}", nil},
		{"/openapi/v3/apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews", []string{"post"}},
		{"/openapi/v3/apis/authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", []string{"post"}},
		{"/openapi/v3/apis/authentication.k8s.io/v1", "/apis/authentication.k8s.io/v1/tokenreviews", []string{"post"}},
		{"/openapi/v3/apis/authentication.k8s.io/v1", "/apis/authentication.k8s.io/v1/tokenreviews/{name}", nil},
		{"/openapi/v3/apis/authentication.k8s.io/v1", "/apis/authentication.k8s.io/v1/selfsubjectreviews", []string{"post"}},
		{"/openapi/v3/api/v1", "/api/v1/namespaces/{namespace}/pods", []string{"delete", "get", "post"}},
		{"/openapi/v3/api/v1", "/api/v1/namespaces/{namespace}/pods/{name}", []string{"delete", "get", "patch", "put"}},
		{"/openapi/v3/api/v1", "/api/v1/namespaces/{namespace}/pods/{name}/binding", []string{"post"}},
		{"/openapi/v3/api/v1", "/api/v1/namespaces/{namespace}/pods/{name}/log", []string{"get"}},
		{"/openapi/v3/api/v1", "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", []string{"post"}},
		{"/openapi/v3/apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", []string{"get", "patch", "put"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			item, ok := docPaths(tc.doc)[tc.path]
			if tc.want == nil {
				if ok {
					t.Errorf("published with %v, want absent", methods(item))
				}
				return
			}
			if got := methods(item); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("methods %v, want %v", got, tc.want)
			}
		})
	}

	// The review kinds answer what is published and refuse the rest.
	for path, item := range docPaths("/openapi/v3/apis/authorization.k8s.io/v1") {
		concrete := strings.ReplaceAll(path, "{namespace}", "default")
		published := map[string]bool{}
		for _, m := range methods(item) {
			published[strings.ToUpper(m)] = true
		}
		for _, m := range []string{"GET", "PUT", "DELETE", "POST"} {
			code, b, _ := rawH(t, s, m, concrete, "application/json", `{"apiVersion":"authorization.k8s.io/v1","spec":{}}`)
			if published[m] == (code == 405) {
				t.Errorf("%s %s: %d (published: %v) %s", m, concrete, code, published[m], b)
			}
		}
	}

	// Swagger 2.0 carries no paths: kubectl reads only its definitions.
	code, b, _ := rawH(t, s, "GET", "/openapi/v2", "", "")
	var v2 struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &v2); code != 200 || err != nil || len(v2.Paths) != 0 {
		t.Errorf("/openapi/v2: %d %v, %d paths", code, err, len(v2.Paths))
	}
}
