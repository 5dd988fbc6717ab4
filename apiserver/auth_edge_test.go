package apiserver_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/auth/authn"
	"github.com/capstan-io/capstan/auth/pki"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestAuditAnonymousAndInsecurePort: requests without credentials reach only
// the public paths, every request (401s included) is audited without its
// body, and the plain HTTP port listens on loopback and still wants credentials.
func TestAuditAnonymousAndInsecurePort(t *testing.T) {
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	port := freePort(t)
	s := apiservertest.Start(t, func(c *apiserver.Config) { c.Auth.AuditLogPath, c.Auth.InsecurePort = auditPath, port })
	anon := tokenIdentity(s, "anonymous", "")
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/version": 200, "/api": 401, "/api/v1/namespaces": 401, "/metrics": 401} {
		if c, b := anon.do(t, s, http.MethodGet, path, nil); c != want {
			t.Errorf("anonymous GET %s: %d, want %d: %s", path, c, want, b)
		}
	}
	mustCreate(t, s, "/api/v1/namespaces/default/secrets", map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"password": "hunter2-do-not-log"}})

	insecure := "http://127.0.0.1:" + strconv.Itoa(port)
	get := func(token string) int {
		req, _ := http.NewRequest(http.MethodGet, insecure+"/api/v1/namespaces", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("insecure port: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get(s.Token); c != http.StatusOK {
		t.Errorf("insecure port with the admin token: %d", c)
	}
	if c := get(""); c != http.StatusUnauthorized {
		t.Errorf("insecure port without credentials: %d", c)
	}

	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Error("the audit log holds a request body")
	}
	type record struct {
		User, Verb, Resource, Namespace, Name, Path, SourceIP string
		Groups                                                []string
		Code                                                  int
		LatencyMS                                             *float64
		Time                                                  time.Time
	}
	var sawCreate, saw401 bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if r.Time.IsZero() || r.LatencyMS == nil || r.SourceIP != "127.0.0.1" {
			t.Errorf("incomplete audit line %q", sc.Text())
		}
		if r.User == "capstan-admin" && r.Verb == "create" && r.Resource == "secrets" && r.Namespace == "default" && r.Code == 201 &&
			strings.Contains(strings.Join(r.Groups, ","), "system:masters") {
			sawCreate = true
		}
		if r.User == "" && r.Path == "/api" && r.Code == 401 {
			saw401 = true
		}
	}
	if !sawCreate || !saw401 {
		t.Errorf("audit log lacks the secret create (%v) or the refused request (%v):\n%s", sawCreate, saw401, data)
	}
}

// TestAnonymousAuth: with --anonymous-auth, requests without credentials are
// system:anonymous and RBAC decides, which by default grants them only the public paths.
func TestAnonymousAuth(t *testing.T) {
	s := apiservertest.Start(t, func(c *apiserver.Config) { c.Auth.AnonymousAuth = true })
	anon := tokenIdentity(s, "anonymous", "")
	if c, _ := anon.do(t, s, http.MethodGet, "/version", nil); c != http.StatusOK {
		t.Errorf("/version: %d", c)
	}
	c, b := anon.do(t, s, http.MethodGet, "/api", nil)
	if want := `forbidden: User "system:anonymous" cannot get path "/api"`; c != http.StatusForbidden || status(t, b).Message != want {
		t.Errorf("/api: %d %s, want 403 %q", c, b, want)
	}
	if c, _ := anon.do(t, s, http.MethodGet, "/api/v1/namespaces", nil); c != http.StatusForbidden {
		t.Errorf("namespaces: %d", c)
	}
	// A bad credential is still 401, not anonymous.
	if c, _ := tokenIdentity(s, "bad", "bad").do(t, s, http.MethodGet, "/version", nil); c != http.StatusUnauthorized {
		t.Errorf("bad token: %d", c)
	}
}

// TestAccessReviews answers SubjectAccessReview and LocalSubjectAccessReview
// from the same rules that authorize requests.
func TestAccessReviews(t *testing.T) {
	s := demoServer(t, roleBinding("demo", "ops-view", "ClusterRole", "view", subject("Group", "ops", "")))
	sar := func(path string, spec map[string]any, kind string) map[string]any {
		out := mustCreate(t, s, path, map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": spec})
		return out["status"].(map[string]any)
	}
	attrs := func(verb, ns string) map[string]any {
		return map[string]any{"verb": verb, "resource": "pods", "namespace": ns}
	}
	const sarPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	eventually(t, 5*time.Second, "binding in force", func() bool {
		return sar(sarPath, map[string]any{"user": "bob", "groups": []string{"ops"}, "resourceAttributes": attrs("list", "demo")}, "SubjectAccessReview")["allowed"] == true
	})
	for _, tc := range []struct {
		name string
		spec map[string]any
		want bool
	}{
		{"group member lists", map[string]any{"user": "bob", "groups": []string{"ops"}, "resourceAttributes": attrs("list", "demo")}, true},
		{"group member deletes", map[string]any{"user": "bob", "groups": []string{"ops"}, "resourceAttributes": attrs("delete", "demo")}, false},
		{"other namespace", map[string]any{"user": "bob", "groups": []string{"ops"}, "resourceAttributes": attrs("list", "default")}, false},
		{"not in the group", map[string]any{"user": "bob", "resourceAttributes": attrs("list", "demo")}, false},
		{"masters", map[string]any{"user": "x", "groups": []string{"system:masters"}, "resourceAttributes": attrs("delete", "kube-system")}, true},
		{"discovery path", map[string]any{"user": "bob", "groups": []string{"system:authenticated"}, "nonResourceAttributes": map[string]any{"path": "/apis", "verb": "get"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sar(sarPath, tc.spec, "SubjectAccessReview")["allowed"]; got != tc.want {
				t.Errorf("allowed = %v, want %v", got, tc.want)
			}
		})
	}
	lsar := "/apis/authorization.k8s.io/v1/namespaces/demo/localsubjectaccessreviews"
	if got := sar(lsar, map[string]any{"user": "bob", "groups": []string{"ops"}, "resourceAttributes": attrs("get", "demo")}, "LocalSubjectAccessReview")["allowed"]; got != true {
		t.Errorf("LocalSubjectAccessReview: %v", got)
	}
	if c, b := raw(t, s, http.MethodPost, lsar, "application/json", mustJSON(map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
		"spec": map[string]any{"user": "bob", "resourceAttributes": attrs("get", "default")}})); c != http.StatusUnprocessableEntity {
		t.Errorf("LocalSubjectAccessReview for another namespace: %d %s", c, b)
	}
	// Asking about others needs permission of its own.
	if c, _ := certIdentity(t, s, "bob", "ops").do(t, s, http.MethodPost, sarPath, map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
		"spec": map[string]any{"user": "x", "resourceAttributes": attrs("get", "demo")}}); c != http.StatusForbidden {
		t.Errorf("SubjectAccessReview by bob: %d", c)
	}
}

// TestImpersonation: a master may act as anyone (kubectl --as); others need
// the impersonate verb on each user, group and service account.
func TestImpersonation(t *testing.T) {
	s := demoServer(t, roleBinding("demo", "bob-view", "ClusterRole", "view", subject("User", "bob", "")))
	whoami := func(id identity, headers map[string][]string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/apis/authentication.k8s.io/v1/selfsubjectreviews",
			bytes.NewReader(mustJSON(map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})))
		req.Header.Set("Content-Type", "application/json")
		if id.token != "" {
			req.Header.Set("Authorization", "Bearer "+id.token)
		}
		for k, vs := range headers {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		resp, err := id.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	admin := tokenIdentity(s, "admin", s.Token)
	code, out := whoami(admin, map[string][]string{"Impersonate-User": {"system:serviceaccount:demo:bot"}, "Impersonate-Group": {"extra"}})
	info, _ := out["status"].(map[string]any)["userInfo"].(map[string]any)
	if code != http.StatusCreated || info["username"] != "system:serviceaccount:demo:bot" ||
		!strings.Contains(fmt.Sprint(info["groups"]), "system:serviceaccounts:demo") || !strings.Contains(fmt.Sprint(info["groups"]), "extra") {
		t.Errorf("admin as the bot: %d %v", code, out)
	}
	bob := certIdentity(t, s, "bob")
	eventually(t, 5*time.Second, "bob's binding", func() bool {
		c, _ := bob.do(t, s, http.MethodGet, "/api/v1/namespaces/demo/pods", nil)
		return c == http.StatusOK
	})
	if code, out := whoami(bob, map[string][]string{"Impersonate-User": {"capstan-admin"}, "Impersonate-Group": {"system:masters"}}); code != http.StatusForbidden ||
		!strings.Contains(fmt.Sprint(out["message"]), `User "bob" cannot impersonate resource "users" in API group ""`) {
		t.Errorf("bob as the admin: %d %v", code, out)
	}
	if code, _ := whoami(bob, map[string][]string{"Impersonate-Group": {"system:masters"}}); code != http.StatusBadRequest {
		t.Errorf("groups without a user: %d", code)
	}
	// Impersonation is authorized as the impersonated user: the admin acting as bob is refused what bob is refused.
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/v1/namespaces/demo/secrets", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Impersonate-User", "bob")
	resp, err := admin.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("admin as bob listing secrets: %d", resp.StatusCode)
	}
}

// TestOIDCTokens: JWTs of a configured external issuer authenticate with the
// configured claims and prefixes, and RBAC applies to the resulting user.
func TestOIDCTokens(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding
	jwks := mustJSON(map[string]any{"keys": []map[string]string{{"kty": "RSA", "n": b64.EncodeToString(key.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(key.E)).Bytes())}}})
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	s := apiservertest.Start(t, func(c *apiserver.Config) {
		c.Auth.OIDC = authn.OIDCConfig{Issuer: "https://idp.example", Audience: "capstan", JWKSFile: path,
			UsernameClaim: "email", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "oidc:"}
	})
	tok, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": "https://idp.example", "aud": "capstan",
		"exp": time.Now().Add(time.Hour).Unix(), "email": "jane@example.com", "groups": []string{"admins"}}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "oidc-admins"}, "roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
		"subjects": []any{subject("Group", "oidc:admins", "")}})
	jane := tokenIdentity(s, "jane", tok)
	eventually(t, 5*time.Second, "jane's group binding", func() bool {
		c, _ := jane.do(t, s, http.MethodGet, "/api/v1/namespaces/default/pods", nil)
		return c == http.StatusOK
	})
	if c, b := jane.do(t, s, http.MethodDelete, "/api/v1/namespaces/default/pods/x", nil); c != http.StatusForbidden ||
		!strings.Contains(status(t, b).Message, `User "oidc:jane@example.com" cannot delete`) {
		t.Errorf("jane deleting: %d %s", c, b)
	}
}

// TestForeignClientCertificate: a certificate from another CA claiming
// system:masters gets a 401 Status, not access and not a failed handshake.
func TestForeignClientCertificate(t *testing.T) {
	s := apiservertest.Start(t)
	other, err := pki.Ensure(pki.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := other.IssueClient("mallory", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	mallory := identity{name: "mallory", http: httpClient(s, []tls.Certificate{pair})}
	code, body := mallory.do(t, s, http.MethodGet, "/api/v1/namespaces", nil)
	if code != http.StatusUnauthorized || status(t, body).Reason != "Unauthorized" {
		t.Errorf("foreign certificate: %d %s", code, body)
	}
	if code, _ := certIdentity(t, s, "capstan-admin", "system:masters").do(t, s, http.MethodGet, "/api/v1/namespaces", nil); code != http.StatusOK {
		t.Errorf("the cluster CA's own certificate: %d", code)
	}
}
