package apiserver_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/storage"
	"github.com/capstan-io/capstan/storage/etcd3"
)

// TestBadInput checks that every kind of bad request gets the right Status and changes nothing in etcd.
func TestBadInput(t *testing.T) {
	s, cms := setup(t, "t")
	ctx := context.Background()
	cur, err := cms.Create(ctx, configMap("exists", map[string]any{"a": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	stale := cur.ResourceVersion()
	if _, err := cms.Update(ctx, cur, ""); err != nil { // bump: `stale` is now out of date
		t.Fatal(err)
	}
	cur["data"] = map[string]any{"a": "2"}
	if _, err := cms.Update(ctx, cur, ""); err != nil {
		t.Fatal(err)
	}
	cli, err := etcd3.NewClient([]string{s.Etcd.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	store := etcd3.New(cli, etcd3.Config{})
	before, err := store.List(ctx, "/registry/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	const cmPath = "/api/v1/namespaces/t/configmaps"
	big := bytes.Repeat([]byte("x"), 3<<20+10)
	staleCM := configMap("exists", map[string]any{"a": "3"})
	staleCM["metadata"].(map[string]any)["resourceVersion"] = stale
	for _, tc := range []struct {
		name, method, path, contentType string
		body                            []byte
		wantCode                        int
		wantReason, wantMessage         string
	}{
		{"unknown resource", "GET", "/api/v1/namespaces/t/widgets", "", nil, 404, "NotFound", "could not find the requested resource"},
		{"unknown group", "GET", "/apis/nope.example.com/v1/things", "", nil, 404, "NotFound", ""},
		{"unknown path", "GET", "/nothing/here", "", nil, 404, "NotFound", ""},
		{"missing object", "GET", cmPath + "/missing", "", nil, 404, "NotFound", `configmaps "missing" not found`},
		{"duplicate create", "POST", cmPath, "application/json", mustJSON(configMap("exists", nil)), 409, "AlreadyExists", `configmaps "exists" already exists`},
		{"stale resourceVersion", "PUT", cmPath + "/exists", "application/json", mustJSON(staleCM), 409, "Conflict", "the object has been modified"},
		{"malformed JSON", "POST", cmPath, "application/json", []byte(`{"apiVersion":"v1",`), 400, "BadRequest", ""},
		{"JSON array body", "POST", cmPath, "application/json", []byte(`[1,2]`), 400, "BadRequest", ""},
		{"kind mismatch", "POST", cmPath, "application/json", []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"k"}}`), 400, "BadRequest", "kind in the data (Secret)"},
		{"apiVersion mismatch", "POST", cmPath, "application/json", []byte(`{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"k"}}`), 400, "BadRequest", "API version"},
		{"namespace mismatch", "POST", cmPath, "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k","namespace":"other"}}`), 400, "BadRequest", "namespace"},
		{"name mismatch", "PUT", cmPath + "/exists", "application/json", mustJSON(configMap("other", nil)), 400, "BadRequest", "does not match the name on the URL"},
		{"resourceVersion on create", "POST", cmPath, "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k","resourceVersion":"5"}}`), 400, "BadRequest", "resourceVersion"},
		{"body too large", "POST", cmPath, "application/json", big, 413, "RequestEntityTooLarge", ""},
		{"unsupported content type", "POST", cmPath, "text/plain", []byte("hello"), 415, "UnsupportedMediaType", ""},
		{"unsupported patch type", "PATCH", cmPath + "/exists", "application/xml", []byte("<a/>"), 415, "UnsupportedMediaType", ""},
		{"malformed JSON patch", "PATCH", cmPath + "/exists", "application/json-patch+json", []byte(`{"op":`), 400, "BadRequest", ""},
		{"failing JSON patch test", "PATCH", cmPath + "/exists", "application/json-patch+json", []byte(`[{"op":"test","path":"/data/a","value":"nope"}]`), 422, "Invalid", ""},
		{"patch renames", "PATCH", cmPath + "/exists", "application/merge-patch+json", []byte(`{"metadata":{"name":"x"}}`), 400, "BadRequest", ""},
		{"method not allowed", "POST", cmPath + "/exists", "application/json", mustJSON(configMap("exists", nil)), 405, "MethodNotAllowed", ""},
		{"invalid name", "POST", cmPath, "application/json", mustJSON(configMap("Not_Valid", nil)), 422, "Invalid", "metadata.name: Invalid value"},
		{"no name", "POST", cmPath, "application/json", mustJSON(configMap("", nil)), 422, "Invalid", "metadata.name: Required value"},
		{"invalid label", "POST", cmPath, "application/json", []byte(`{"metadata":{"name":"l","labels":{"bad key!":"v"}}}`), 422, "Invalid", "metadata.labels"},
		{"missing namespace", "POST", "/api/v1/namespaces/ghost/configmaps", "application/json", mustJSON(configMap("k", nil)), 404, "NotFound", `namespaces "ghost" not found`},
		{"bad label selector", "GET", cmPath + "?labelSelector=a%20in%20(", "", nil, 400, "BadRequest", ""},
		{"unsupported field selector", "GET", cmPath + "?fieldSelector=spec.foo%3Dbar", "", nil, 400, "BadRequest", "field label not supported"},
		{"bad limit", "GET", cmPath + "?limit=abc", "", nil, 400, "BadRequest", ""},
		{"bad continue", "GET", cmPath + "?limit=1&continue=garbage", "", nil, 400, "BadRequest", "continue"},
		{"bad resourceVersion", "GET", cmPath + "?watch=1&resourceVersion=abc", "", nil, 400, "BadRequest", ""},
		{"bad dryRun", "POST", cmPath + "?dryRun=Some", "application/json", mustJSON(configMap("d", nil)), 400, "BadRequest", "dryRun"},
		{"bad propagationPolicy", "DELETE", cmPath + "/exists?propagationPolicy=Sideways", "", nil, 400, "BadRequest", ""},
		{"delete precondition uid", "DELETE", cmPath + "/exists", "application/json", []byte(`{"preconditions":{"uid":"nope"}}`), 409, "Conflict", "Precondition failed"},
		{"namespaced get without namespace", "GET", "/api/v1/configmaps/exists", "", nil, 404, "NotFound", ""},
		{"cluster-scoped under namespace", "GET", "/api/v1/namespaces/t/nodes/n1", "", nil, 404, "NotFound", ""},
		{"unknown subresource", "GET", cmPath + "/exists/status", "", nil, 404, "NotFound", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := raw(t, s, tc.method, tc.path, tc.contentType, tc.body)
			if code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", code, tc.wantCode, body)
			}
			st := status(t, body)
			if st.Kind != "Status" || st.Status != "Failure" || int(st.Code) != tc.wantCode || st.Reason != tc.wantReason {
				t.Fatalf("status %+v, want code %d reason %s", st, tc.wantCode, tc.wantReason)
			}
			if !strings.Contains(st.Message, tc.wantMessage) {
				t.Fatalf("message %q does not contain %q", st.Message, tc.wantMessage)
			}
		})
	}

	after, err := store.List(ctx, "/registry/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Items) != len(before.Items) {
		t.Fatalf("failed requests changed etcd: %d keys before, %d after", len(before.Items), len(after.Items))
	}
	for i := range before.Items {
		if before.Items[i].Key != after.Items[i].Key || before.Items[i].ModRevision != after.Items[i].ModRevision {
			t.Errorf("failed requests changed %s", before.Items[i].Key)
		}
	}
}

func TestUnauthenticated(t *testing.T) {
	s := setupServer(t)
	for _, tc := range []struct {
		name, path, token string
		want              int
	}{
		{"no credential", "/api/v1/namespaces", "", http.StatusUnauthorized},
		{"wrong token", "/api/v1/namespaces", "wrong", http.StatusUnauthorized},
		{"metrics need a credential", "/metrics", "", http.StatusUnauthorized},
		{"pprof needs a credential", "/debug/pprof/", "", http.StatusUnauthorized},
		{"healthz is public", "/healthz", "", http.StatusOK},
		{"readyz is public", "/readyz", "", http.StatusOK},
		{"version is public", "/version", "", http.StatusOK},
		{"admin token", "/api/v1/namespaces", s.Token, http.StatusOK},
		{"admin token reads metrics", "/metrics", s.Token, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL()+tc.path, nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := s.Client.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("code %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}
