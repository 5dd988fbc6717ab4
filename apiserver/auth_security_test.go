package apiserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/auth/pki"
)

// TestHostileTokens sends forged, stale and malformed bearer tokens to a
// running hub: every one is 401, and a good token stops working once its
// service account is deleted.
func TestHostileTokens(t *testing.T) {
	s := demoServer(t)
	good := serviceAccountToken(t, s, "demo", "bot")
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := pki.LoadOrCreateKey(filepath.Join(s.PKI().Dir, "sa.key")) // the server's own signing key
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	now := time.Now()
	claims := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{}
		_, _, err := jwt.NewParser().ParseUnverified(good, c)
		if err != nil {
			t.Fatal(err)
		}
		if mod != nil {
			mod(c)
		}
		return c
	}
	sign := func(m jwt.SigningMethod, key any, c jwt.MapClaims) string {
		tok, err := jwt.NewWithClaims(m, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	parts := strings.Split(good, ".")
	cases := map[string]string{
		"wrong signing key":                       sign(jwt.SigningMethodES256, other, claims(nil)),
		"alg none":                                sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil)),
		"HS256 signed with the public key":        sign(jwt.SigningMethodHS256, pubPEM, claims(nil)),
		"HS256 signed with the public key (DER)":  sign(jwt.SigningMethodHS256, pubDER, claims(nil)),
		"HS256 with the CA certificate as secret": sign(jwt.SigningMethodHS256, s.PKI().CAPEM, claims(nil)),
		"expired":                    sign(jwt.SigningMethodES256, key, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() })),
		"not yet valid":              sign(jwt.SigningMethodES256, key, claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() })),
		"no expiry":                  sign(jwt.SigningMethodES256, key, claims(func(c jwt.MapClaims) { delete(c, "exp") })),
		"wrong audience":             sign(jwt.SigningMethodES256, key, claims(func(c jwt.MapClaims) { c["aud"] = "vault" })),
		"wrong issuer":               sign(jwt.SigningMethodES256, key, claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })),
		"other account's subject":    sign(jwt.SigningMethodES256, key, claims(func(c jwt.MapClaims) { c["sub"] = "system:serviceaccount:kube-system:default" })),
		"truncated":                  good[:len(good)-8],
		"payload of another account": parts[0] + "." + strings.Replace(parts[1], "a", "b", 1) + "." + parts[2],
		"garbage":                    "not-a-token",
		"admin token with a suffix":  s.Token + "x",
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			code, body := tokenIdentity(s, name, tok).do(t, s, http.MethodGet, "/api/v1/namespaces/demo/pods", nil)
			if code != http.StatusUnauthorized {
				t.Errorf("code = %d, want 401: %s", code, body)
			}
			if st := status(t, body); st.Reason != "Unauthorized" {
				t.Errorf("reason = %q", st.Reason)
			}
		})
	}

	bot := tokenIdentity(s, "bot", good)
	if code, body := bot.do(t, s, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}); code != http.StatusCreated ||
		!strings.Contains(string(body), `"username":"system:serviceaccount:demo:bot"`) {
		t.Fatalf("whoami with a good token: %d %s", code, body)
	}
	if c, b := raw(t, s, http.MethodDelete, "/api/v1/namespaces/demo/serviceaccounts/bot", "", nil); c != http.StatusOK {
		t.Fatalf("deleting the service account: %d %s", c, b)
	}
	eventually(t, time.Second, "token of a deleted service account refused", func() bool {
		c, _ := bot.do(t, s, http.MethodGet, "/api/v1/namespaces/demo/pods", nil)
		return c == http.StatusUnauthorized
	})
	// A new account of the same name does not revive the old token.
	mustCreate(t, s, "/api/v1/namespaces/demo/serviceaccounts", map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "bot"}})
	if c, _ := bot.do(t, s, http.MethodGet, "/apis", nil); c != http.StatusUnauthorized {
		t.Errorf("old token after the account was recreated: %d", c)
	}
}

// TestEscalationPrevented lets a namespace admin write roles and bindings
// within what it holds, and refuses anything beyond.
func TestEscalationPrevented(t *testing.T) {
	s := demoServer(t, roleBinding("demo", "dave-admin", "ClusterRole", "admin", subject("User", "dave", "")))
	dave := certIdentity(t, s, "dave")
	rolesPath := "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles"
	bindingsPath := "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings"
	eventually(t, 5*time.Second, "dave's binding in force", func() bool {
		c, _ := dave.do(t, s, http.MethodGet, rolesPath, nil)
		return c == http.StatusOK
	})
	for _, tc := range []struct {
		name, path string
		obj        map[string]any
		want       int
	}{
		{"role within held rules", rolesPath, role("demo", "ok", policyRule([]string{""}, []string{"pods"}, []string{"get", "list"})), http.StatusCreated},
		{"role over nodes", rolesPath, role("demo", "nodes", policyRule([]string{""}, []string{"nodes"}, []string{"get"})), http.StatusForbidden},
		{"role with a star verb", rolesPath, role("demo", "star", policyRule([]string{""}, []string{"pods"}, []string{"*"})), http.StatusForbidden},
		{"role over every group", rolesPath, role("demo", "allgroups", policyRule([]string{"*"}, []string{"*"}, []string{"get"})), http.StatusForbidden},
		{"bind view", bindingsPath, roleBinding("demo", "view-eve", "ClusterRole", "view", subject("User", "eve", "")), http.StatusCreated},
		{"bind cluster-admin to self", bindingsPath, roleBinding("demo", "self-admin", "ClusterRole", "cluster-admin", subject("User", "dave", "")), http.StatusForbidden},
		{"bind kube-controller-manager", bindingsPath, roleBinding("demo", "kcm", "ClusterRole", "system:kube-controller-manager", subject("User", "dave", "")), http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := dave.do(t, s, http.MethodPost, tc.path, tc.obj)
			if code != tc.want {
				t.Fatalf("code = %d, want %d: %s", code, tc.want, body)
			}
			if code == http.StatusForbidden && !strings.Contains(status(t, body).Message, "is attempting to grant RBAC permissions not currently held") {
				t.Errorf("message = %q", status(t, body).Message)
			}
		})
	}
	// Updating an allowed role to grant more is refused too.
	upd := role("demo", "ok", policyRule([]string{""}, []string{"secrets", "nodes"}, []string{"get"}))
	if code, body := dave.do(t, s, http.MethodPut, rolesPath+"/ok", upd); code != http.StatusForbidden {
		t.Errorf("escalating update: %d %s", code, body)
	}
	// With escalate and bind granted, the same writes pass.
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/clusterroles", map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": "escalator"}, "rules": []any{policyRule([]string{"rbac.authorization.k8s.io"}, []string{"roles", "clusterroles"}, []string{"escalate", "bind"})}})
	mustCreate(t, s, bindingsPath, roleBinding("demo", "dave-escalates", "ClusterRole", "escalator", subject("User", "dave", "")))
	eventually(t, 5*time.Second, "escalate granted", func() bool {
		c, _ := dave.do(t, s, http.MethodPost, rolesPath, role("demo", "nodes", policyRule([]string{""}, []string{"nodes"}, []string{"get"})))
		return c == http.StatusCreated
	})
	if code, body := dave.do(t, s, http.MethodPost, bindingsPath, roleBinding("demo", "self-admin", "ClusterRole", "cluster-admin", subject("User", "dave", ""))); code != http.StatusCreated {
		t.Errorf("bind with the bind verb: %d %s", code, body)
	}
}

// TestNodeRestriction checks that a node reaches only its own pods and the
// secrets and config maps they use.
func TestNodeRestriction(t *testing.T) {
	s := demoServer(t)
	for _, n := range []struct{ pod, node, secret, cm string }{{"p1", "n1", "s1", "c1"}, {"p2", "n2", "s2", "c2"}} {
		mustCreate(t, s, "/api/v1/namespaces/demo/secrets", map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": n.secret}})
		mustCreate(t, s, "/api/v1/namespaces/demo/configmaps", configMap(n.cm, nil))
		mustCreate(t, s, "/api/v1/namespaces/demo/pods", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": n.pod},
			"spec": map[string]any{"nodeName": n.node, "containers": []any{map[string]any{"name": "c", "image": "busybox",
				"envFrom": []any{map[string]any{"configMapRef": map[string]any{"name": n.cm}}}}},
				"volumes": []any{map[string]any{"name": "v", "secret": map[string]any{"secretName": n.secret}}}}})
	}
	n1 := certIdentity(t, s, "system:node:n1", "system:nodes")
	eventually(t, 5*time.Second, "pod graph", func() bool {
		c, _ := n1.do(t, s, http.MethodGet, "/api/v1/namespaces/demo/pods/p1", nil)
		return c == http.StatusOK
	})
	for _, tc := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"own pod", http.MethodGet, "/api/v1/namespaces/demo/pods/p1", nil, http.StatusOK},
		{"other node's pod", http.MethodGet, "/api/v1/namespaces/demo/pods/p2", nil, http.StatusForbidden},
		{"own pod's secret", http.MethodGet, "/api/v1/namespaces/demo/secrets/s1", nil, http.StatusOK},
		{"other node's secret", http.MethodGet, "/api/v1/namespaces/demo/secrets/s2", nil, http.StatusForbidden},
		{"own pod's config map", http.MethodGet, "/api/v1/namespaces/demo/configmaps/c1", nil, http.StatusOK},
		{"other node's config map", http.MethodGet, "/api/v1/namespaces/demo/configmaps/c2", nil, http.StatusForbidden},
		{"list secrets", http.MethodGet, "/api/v1/namespaces/demo/secrets", nil, http.StatusForbidden},
		{"own pod status", http.MethodPatch, "/api/v1/namespaces/demo/pods/p1/status", map[string]any{"status": map[string]any{"phase": "Running"}}, http.StatusOK},
		{"other pod status", http.MethodPatch, "/api/v1/namespaces/demo/pods/p2/status", map[string]any{"status": map[string]any{"phase": "Running"}}, http.StatusForbidden},
		{"own node lease", http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "n1"}}, http.StatusCreated},
		{"other node's lease", http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2", map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "n2"}}, http.StatusForbidden},
		{"other node", http.MethodPatch, "/api/v1/nodes/n2/status", map[string]any{}, http.StatusForbidden},
		{"deployments", http.MethodGet, "/apis/apps/v1/namespaces/demo/deployments", nil, http.StatusForbidden},
		// Reviews are RBAC's: system:basic-user lets every user ask who it
		// is and what it may do, and nothing grants SubjectAccessReviews.
		{"whoami", http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, http.StatusCreated},
		{"can-i", http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
			"spec": map[string]any{"resourceAttributes": map[string]any{"verb": "get", "resource": "pods"}}}, http.StatusCreated},
		{"someone else's access", http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
			"spec": map[string]any{"user": "alice", "resourceAttributes": map[string]any{"verb": "get", "resource": "pods"}}}, http.StatusForbidden},
		{"register itself", http.MethodPost, "/api/v1/nodes", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n1"}}, http.StatusCreated},
		{"register another node", http.MethodPost, "/api/v1/nodes", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n3"}}, http.StatusForbidden},
		{"mirror pod bound to itself", http.MethodPost, "/api/v1/namespaces/demo/pods", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "m1"},
			"spec": map[string]any{"nodeName": "n1", "containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}, http.StatusCreated},
		{"pod bound to another node", http.MethodPost, "/api/v1/namespaces/demo/pods", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "m2"},
			"spec": map[string]any{"nodeName": "n2", "containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := n1.do(t, s, tc.method, tc.path, tc.body)
			if code != tc.want {
				t.Errorf("code = %d, want %d: %s", code, tc.want, body)
			}
		})
	}
}

// TestTokenSubresourceIsCreateOnly: only POST reaches serviceaccounts/<name>/token
// and the review kinds; other methods there must not act on the ServiceAccount
// itself or on storage.
func TestTokenSubresourceIsCreateOnly(t *testing.T) {
	s := apiservertest.Start(t)
	mustCreate(t, s, "/api/v1/namespaces/default/serviceaccounts", map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "bot"}})
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if c, b := raw(t, s, m, "/api/v1/namespaces/default/serviceaccounts/bot/token", "application/json", []byte("{}")); c != http.StatusMethodNotAllowed {
			t.Errorf("%s token: %d %s", m, c, b)
		}
	}
	for _, path := range []string{"/apis/authentication.k8s.io/v1/tokenreviews", "/apis/authorization.k8s.io/v1/subjectaccessreviews?watch=1",
		"/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews/x"} {
		if c, b := raw(t, s, http.MethodGet, path, "", nil); c != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: %d %s", path, c, b)
		}
	}
	if c, b := raw(t, s, http.MethodGet, "/api/v1/namespaces/default/serviceaccounts/bot", "", nil); c != http.StatusOK {
		t.Fatalf("the ServiceAccount is gone: %d %s", c, b)
	}
	if c, b := raw(t, s, http.MethodPost, "/api/v1/namespaces/default/serviceaccounts/bot/token", "application/json",
		mustJSON(map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": map[string]any{"expirationSeconds": 60}})); c != http.StatusUnprocessableEntity {
		t.Errorf("a 60 s token: %d %s", c, b)
	}
}

// TestPodBoundToken: a token bound to a pod dies with the pod, and TokenReview agrees.
func TestPodBoundToken(t *testing.T) {
	s := apiservertest.Start(t)
	mustCreate(t, s, "/api/v1/namespaces/default/serviceaccounts", map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "bot"}})
	p := mustCreate(t, s, "/api/v1/namespaces/default/pods", pod("web"))
	uid := p["metadata"].(map[string]any)["uid"]
	tr := mustCreate(t, s, "/api/v1/namespaces/default/serviceaccounts/bot/token", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
		"spec": map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "apiVersion": "v1", "name": "web", "uid": uid}}})
	token := tr["status"].(map[string]any)["token"].(string)
	review := func() map[string]any {
		out := mustCreate(t, s, "/apis/authentication.k8s.io/v1/tokenreviews", map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": map[string]any{"token": token}})
		return out["status"].(map[string]any)
	}
	st := review()
	if st["authenticated"] != true || st["user"].(map[string]any)["username"] != "system:serviceaccount:default:bot" {
		t.Fatalf("TokenReview of a live token: %v", st)
	}
	if c, b := raw(t, s, http.MethodDelete, "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0", "", nil); c != http.StatusOK {
		t.Fatalf("deleting the pod: %d %s", c, b)
	}
	eventually(t, time.Second, "token of a deleted pod refused", func() bool {
		c, _ := tokenIdentity(s, "bot", token).do(t, s, http.MethodGet, "/apis", nil)
		return c == http.StatusUnauthorized
	})
	if st := review(); st["authenticated"] != false {
		t.Errorf("TokenReview after the pod is gone: %v", st)
	}
}
