package apiserver_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

// identity is a way of calling the hub: a client certificate, a bearer token, or nothing.
type identity struct {
	name  string
	http  *http.Client
	token string
}

// certIdentity mints a client certificate from the cluster CA.
func certIdentity(t *testing.T, s *apiservertest.Server, user string, groups ...string) identity {
	t.Helper()
	certPEM, keyPEM, err := s.PKI().IssueClient(user, groups)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return identity{name: user, http: httpClient(s, []tls.Certificate{pair})}
}

// tokenIdentity calls with a bearer token and no client certificate.
func tokenIdentity(s *apiservertest.Server, name, token string) identity {
	return identity{name: name, http: httpClient(s, nil), token: token}
}

func httpClient(s *apiservertest.Server, certs []tls.Certificate) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.PKI().CAPEM)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: certs, MinVersion: tls.VersionTLS12},
	}}
}

// do sends one request as id (a PATCH is a merge patch) and returns the code and body.
func (id identity) do(t *testing.T, s *apiservertest.Server, method, path string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL()+path, r)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case method == http.MethodPatch:
		req.Header.Set("Content-Type", "application/merge-patch+json")
	case body != nil:
		req.Header.Set("Content-Type", "application/json")
	}
	if id.token != "" {
		req.Header.Set("Authorization", "Bearer "+id.token)
	}
	resp, err := id.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s as %s: %v", method, path, id.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// eventually polls cond every 10ms until it holds, failing after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("%s: not within %v", what, d)
		case <-tick.C:
		}
	}
}

// mustCreate creates obj at path as the admin.
func mustCreate(t *testing.T, s *apiservertest.Server, path string, obj any) map[string]any {
	t.Helper()
	code, b := raw(t, s, http.MethodPost, path, "application/json", mustJSON(obj))
	if code != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, code, b)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

func roleBinding(ns, name, roleKind, role string, subjects ...map[string]any) map[string]any {
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": role}, "subjects": subjects}
}

func subject(kind, name, ns string) map[string]any {
	s := map[string]any{"kind": kind, "name": name}
	if kind == "ServiceAccount" {
		s["namespace"] = ns
	} else {
		s["apiGroup"] = "rbac.authorization.k8s.io"
	}
	return s
}

func role(ns, name string, rules ...map[string]any) map[string]any {
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"name": name, "namespace": ns}, "rules": rules}
}

func policyRule(groups, resources, verbs []string) map[string]any {
	return map[string]any{"apiGroups": groups, "resources": resources, "verbs": verbs}
}

// serviceAccountToken creates ns/name and returns a token for it.
func serviceAccountToken(t *testing.T, s *apiservertest.Server, ns, name string) string {
	t.Helper()
	mustCreate(t, s, "/api/v1/namespaces/"+ns+"/serviceaccounts", map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name}})
	tr := mustCreate(t, s, "/api/v1/namespaces/"+ns+"/serviceaccounts/"+name+"/token",
		map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": map[string]any{}})
	status, _ := tr["status"].(map[string]any)
	tok, _ := status["token"].(string)
	if tok == "" {
		t.Fatalf("TokenRequest returned no token: %v", tr)
	}
	return tok
}

// demoServer starts a hub with namespace demo and the given RoleBindings in it.
func demoServer(t *testing.T, bindings ...map[string]any) *apiservertest.Server {
	t.Helper()
	s := apiservertest.Start(t)
	mustCreate(t, s, "/api/v1/namespaces", namespace("demo"))
	for _, b := range bindings {
		mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings", b)
	}
	return s
}
