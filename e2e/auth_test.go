package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
)

// TestKubectlServiceAccountAndCertUsers drives authentication and RBAC with
// the real kubectl: a ServiceAccount token from `kubectl create token`, allowed
// by a Role in one namespace and refused in another; `auth whoami` and
// `auth can-i`; and a client-certificate user minted by `capstan kubeconfig`.
func TestKubectlServiceAccountAndCertUsers(t *testing.T) {
	requireKubectl(t)
	s := startServer(t)
	admin := func(args ...string) string {
		t.Helper()
		out, err := framework.Kubectl(t, s, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := admin("api-resources", "--api-group=authorization.k8s.io", "-o", "wide"); !strings.Contains(out, "selfsubjectaccessreviews") || !strings.Contains(out, "create") {
		t.Errorf("api-resources for authorization.k8s.io:\n%s", out)
	}
	admin("create", "namespace", "alpha")
	admin("create", "namespace", "beta")
	admin("create", "serviceaccount", "bot", "-n", "alpha")
	admin("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods", "-n", "alpha")
	admin("create", "rolebinding", "bot-reads-pods", "--role=pod-reader", "--serviceaccount=alpha:bot", "-n", "alpha")
	token := strings.TrimSpace(admin("create", "token", "bot", "-n", "alpha", "--duration=10m"))
	if strings.Count(token, ".") != 2 {
		t.Fatalf("kubectl create token printed %q", token)
	}

	// asBot runs kubectl with only the token: no client certificate.
	asBot := func(args ...string) (string, error) {
		t.Helper()
		return framework.Kubectl(t, s, append([]string{"--kubeconfig=" + os.DevNull, "--server=" + s.URL,
			"--certificate-authority=" + filepath.Join(s.DataDir, "ca.crt"), "--token=" + token}, args...)...)
	}
	out, err := asBot("auth", "whoami")
	if err != nil || !strings.Contains(out, "system:serviceaccount:alpha:bot") || !strings.Contains(out, "system:serviceaccounts:alpha") {
		t.Fatalf("auth whoami: %v\n%s", err, out)
	}
	waitFor(t, "the bot's binding", func() bool { _, err := asBot("get", "pods", "-n", "alpha"); return err == nil })
	if out, err := asBot("auth", "can-i", "list", "pods", "-n", "alpha"); err != nil || strings.TrimSpace(out) != "yes" {
		t.Errorf("can-i list pods in alpha: %q %v", out, err)
	}
	if out, _ := asBot("auth", "can-i", "list", "pods", "-n", "beta"); strings.TrimSpace(out) != "no" {
		t.Errorf("can-i list pods in beta: %q", out)
	}
	if out, _ := asBot("auth", "can-i", "delete", "pods", "-n", "alpha"); strings.TrimSpace(out) != "no" {
		t.Errorf("can-i delete pods in alpha: %q", out)
	}
	// The admin may ask on the bot's behalf (impersonation).
	if out, err := framework.Kubectl(t, s, "auth", "can-i", "list", "pods", "-n", "alpha", "--as=system:serviceaccount:alpha:bot"); err != nil || strings.TrimSpace(out) != "yes" {
		t.Errorf("can-i --as the bot in alpha: %q %v", out, err)
	}
	if out, _ := framework.Kubectl(t, s, "auth", "can-i", "list", "pods", "-n", "beta", "--as=system:serviceaccount:alpha:bot"); strings.TrimSpace(out) != "no" {
		t.Errorf("can-i --as the bot in beta: %q", out)
	}
	_, err = asBot("get", "pods", "-n", "beta")
	if want := `pods is forbidden: User "system:serviceaccount:alpha:bot" cannot list resource "pods" in API group "" in the namespace "beta"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("get pods in beta: %v; want %s", err, want)
	}
	if _, err := asBot("create", "configmap", "x", "-n", "alpha"); err == nil || !strings.Contains(err.Error(), `configmaps is forbidden: User "system:serviceaccount:alpha:bot" cannot create resource "configmaps"`) {
		t.Errorf("create configmap as bot: %v", err)
	}
	admin("delete", "serviceaccount", "bot", "-n", "alpha")
	waitFor(t, "the token to die with its account", func() bool {
		_, err := asBot("get", "pods", "-n", "alpha")
		return err != nil && strings.Contains(err.Error(), "Unauthorized")
	})

	// A client-certificate user minted by capstan kubeconfig.
	kc, err := exec.Command(capstanBin, "kubeconfig", "--data-dir", s.DataDir, "--server", s.URL, "--user", "alice", "--group", "devs").Output()
	if err != nil {
		t.Fatalf("capstan kubeconfig --user: %v", err)
	}
	alicePath := filepath.Join(t.TempDir(), "alice.kubeconfig")
	if err := os.WriteFile(alicePath, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	asAlice := func(args ...string) (string, error) {
		t.Helper()
		return framework.Kubectl(t, s, append([]string{"--kubeconfig=" + alicePath}, args...)...)
	}
	out, err = asAlice("auth", "whoami")
	if err != nil || !strings.Contains(out, "alice") || !strings.Contains(out, "devs") {
		t.Fatalf("alice whoami: %v\n%s", err, out)
	}
	if _, err := asAlice("get", "configmaps", "-n", "beta"); err == nil || !strings.Contains(err.Error(), `User "alice" cannot list resource "configmaps"`) {
		t.Errorf("alice before any binding: %v", err)
	}
	admin("create", "rolebinding", "devs-edit", "--clusterrole=edit", "--group=devs", "-n", "beta")
	waitFor(t, "alice's group binding", func() bool { _, err := asAlice("get", "configmaps", "-n", "beta"); return err == nil })
	if _, err := asAlice("create", "configmap", "mine", "-n", "beta", "--from-literal=a=b"); err != nil {
		t.Errorf("alice create in beta: %v", err)
	}
	if out, _ := asAlice("auth", "can-i", "create", "configmaps", "-n", "alpha"); strings.TrimSpace(out) != "no" {
		t.Errorf("alice can-i create configmaps in alpha: %q", out)
	}
	if out, err := asAlice("auth", "can-i", "--list", "-n", "beta"); err != nil || !strings.Contains(out, "configmaps") {
		t.Errorf("alice can-i --list: %v\n%s", err, out)
	}
}

// waitFor retries cond every 100ms for up to 10s; RBAC changes arrive by watch.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		<-tick.C
	}
}
