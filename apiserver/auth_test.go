package apiserver_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

// TestRBACMatrix calls the hub as seven identities, each verb on each
// resource in each namespace, and compares every answer with the expected
// table: allowed (any code but 401 and 403), 403, or 401.
func TestRBACMatrix(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte("bob-token,bob,bob-uid,\"viewers\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := apiservertest.Start(t, func(c *apiserver.Config) { c.Auth.TokenAuthFile = tokenFile })
	for _, ns := range []string{"alpha", "beta"} {
		mustCreate(t, s, "/api/v1/namespaces", namespace(ns))
	}
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/namespaces/alpha/rolebindings",
		roleBinding("alpha", "alice-edit", "ClusterRole", "edit", subject("User", "alice", "")))
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/namespaces/beta/rolebindings",
		roleBinding("beta", "viewers", "ClusterRole", "view", subject("Group", "viewers", "")))
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/namespaces/alpha/roles",
		role("alpha", "pod-reader", policyRule([]string{""}, []string{"pods"}, []string{"get", "list"})))
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/namespaces/alpha/rolebindings",
		roleBinding("alpha", "bot-reads-pods", "Role", "pod-reader", subject("ServiceAccount", "bot", "alpha")))
	botToken := serviceAccountToken(t, s, "alpha", "bot")

	ids := []identity{
		tokenIdentity(s, "admin", s.Token),
		certIdentity(t, s, "alice", "dev"),
		tokenIdentity(s, "bob", "bob-token"),
		tokenIdentity(s, "bot", botToken),
		certIdentity(t, s, "system:node:n1", "system:nodes"),
		certIdentity(t, s, "carol"),
		tokenIdentity(s, "anonymous", ""),
	}
	// The bindings reach the authorizer through the watch; wait for the last ones.
	eventually(t, 5*time.Second, "bindings in force", func() bool {
		c1, _ := ids[3].do(t, s, http.MethodGet, "/api/v1/namespaces/alpha/pods", nil)
		c2, _ := ids[1].do(t, s, http.MethodGet, "/api/v1/namespaces/alpha/pods", nil)
		c3, _ := ids[2].do(t, s, http.MethodGet, "/api/v1/namespaces/beta/pods", nil)
		return c1 == http.StatusOK && c2 == http.StatusOK && c3 == http.StatusOK
	})
	// allowed lists "verb resource namespace" triples; "*" matches everything.
	allowed := map[string][]string{
		"admin": {"*"},
		"alice": {"get pods alpha", "list pods alpha", "create pods alpha", "delete pods alpha",
			"get configmaps alpha", "list configmaps alpha", "create configmaps alpha", "delete configmaps alpha",
			"get secrets alpha", "list secrets alpha", "create secrets alpha", "delete secrets alpha",
			"get deployments alpha", "list deployments alpha", "create deployments alpha", "delete deployments alpha"},
		"bob": {"get pods beta", "list pods beta", "get configmaps beta", "list configmaps beta",
			"get deployments beta", "list deployments beta"},
		"bot": {"get pods alpha", "list pods alpha"},
		// A node may list pods; the objects asked for here are bound to no
		// node (the pods it creates too), so everything else is refused.
		"system:node:n1": {"list pods alpha", "list pods beta"},
		"carol":          {},
	}
	resources := map[string]string{"pods": "/api/v1", "configmaps": "/api/v1", "secrets": "/api/v1", "deployments": "/apis/apps/v1"}
	kinds := map[string]string{"pods": "Pod", "configmaps": "ConfigMap", "secrets": "Secret", "deployments": "Deployment"}
	var mismatches []string
	for _, id := range ids {
		for _, verb := range []string{"get", "list", "create", "delete"} {
			for _, res := range []string{"pods", "configmaps", "secrets", "deployments"} {
				for _, ns := range []string{"alpha", "beta"} {
					base := resources[res] + "/namespaces/" + ns + "/" + res
					var code int
					var body []byte
					switch verb {
					case "get":
						code, body = id.do(t, s, http.MethodGet, base+"/missing", nil)
					case "list":
						code, body = id.do(t, s, http.MethodGet, base, nil)
					case "create":
						obj := map[string]any{"apiVersion": strings.TrimPrefix(strings.TrimPrefix(resources[res], "/apis/"), "/api/"), "kind": kinds[res],
							"metadata": map[string]any{"generateName": "m-"}}
						if res == "pods" {
							obj["spec"] = map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}
						}
						code, body = id.do(t, s, http.MethodPost, base, obj)
					case "delete":
						code, body = id.do(t, s, http.MethodDelete, base+"/missing", nil)
					}
					want := "403"
					switch {
					case id.name == "anonymous":
						want = "401"
					case slices.Contains(allowed[id.name], "*") || slices.Contains(allowed[id.name], verb+" "+res+" "+ns):
						want = "allowed"
					}
					got := fmt.Sprint(code)
					if code != http.StatusUnauthorized && code != http.StatusForbidden {
						got = "allowed"
					}
					if got != want {
						mismatches = append(mismatches, fmt.Sprintf("%s %s %s in %s: got %d, want %s: %s", id.name, verb, res, ns, code, want, body))
					}
				}
			}
		}
	}
	for _, m := range mismatches {
		t.Error(m)
	}

	// The 403 reads as Kubernetes writes it.
	_, body := ids[2].do(t, s, http.MethodGet, "/api/v1/namespaces/alpha/pods", nil)
	if want := `pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "alpha"`; status(t, body).Message != want {
		t.Errorf("403 message = %q, want %q", status(t, body).Message, want)
	}
}

// TestRoleChangeTakesEffectQuickly grants and revokes a permission and
// checks both are in force within a second.
func TestRoleChangeTakesEffectQuickly(t *testing.T) {
	s := demoServer(t)
	dan := certIdentity(t, s, "dan")
	list := func() int { c, _ := dan.do(t, s, http.MethodGet, "/api/v1/namespaces/demo/configmaps", nil); return c }
	if c := list(); c != http.StatusForbidden {
		t.Fatalf("before the binding: %d", c)
	}
	start := time.Now()
	mustCreate(t, s, "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings",
		roleBinding("demo", "dan-view", "ClusterRole", "view", subject("User", "dan", "")))
	eventually(t, time.Second, "grant in force", func() bool { return list() == http.StatusOK })
	t.Logf("grant in force after %v", time.Since(start))
	if c, b := raw(t, s, http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings/dan-view", "", nil); c != http.StatusOK {
		t.Fatalf("deleting the binding: %d %s", c, b)
	}
	eventually(t, time.Second, "revocation in force", func() bool { return list() == http.StatusForbidden })
}
