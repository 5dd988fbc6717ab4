package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// TestBootstrapCluster: `capstan bootstrap` (the compose stack's init step)
// makes credentials two hub replicas share, agent kubeconfigs and an admin
// kubeconfig with a context per replica; kubectl works through both
// contexts, a node's kubeconfig authenticates as that node on both replicas,
// and running it again keeps the CA.
func TestBootstrapCluster(t *testing.T) {
	requireKubectl(t)
	dir := t.TempDir()
	admin := filepath.Join(dir, "out", "admin.kubeconfig")
	bootstrap := func(adminServers string) {
		t.Helper()
		out, err := exec.Command(capstanBin, "bootstrap", "--dir", dir, "--nodes", "n1",
			"--servers", "a=https://a.invalid:6443,b=https://b.invalid:6443",
			"--admin-kubeconfig", admin, "--admin-servers", adminServers).CombinedOutput()
		if err != nil {
			t.Fatalf("capstan bootstrap: %v\n%s", err, out)
		}
	}
	bootstrap("https://127.0.0.1:1") // placeholder: the replicas' ports are not known yet
	ca, err := os.ReadFile(filepath.Join(dir, "ca", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a/ca.crt", "a/ca.key", "a/admin.token", "a/sa.key", "b/sa.key", "scheduler.kubeconfig", "controller-manager.kubeconfig", "node-n1.kubeconfig"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("bootstrap did not write %s: %v", f, err)
		}
	}

	etcd := storagetest.RunCluster(t, 1)
	args := []string{"--etcd-servers", strings.Join(etcd.Endpoints(), ",")}
	a := framework.StartServerSeeded(t, capstanBin, filepath.Join(dir, "a"), args...)
	b := framework.StartServerSeeded(t, capstanBin, filepath.Join(dir, "b"), args...)
	bootstrap(a.URL + "," + b.URL) // rewrites the admin kubeconfig only
	if again, _ := os.ReadFile(filepath.Join(dir, "ca", "ca.crt")); !bytes.Equal(again, ca) {
		t.Fatal("a second bootstrap replaced the CA")
	}

	run := func(kubeconfig string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "kubectl", append(args, "--cache-dir", t.TempDir())...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	for _, ctx := range []string{"capstan", "capstan-2"} {
		if out := run(admin, "--context", ctx, "get", "namespaces", "-o", "name"); !strings.Contains(out, "namespace/kube-system") {
			t.Errorf("kubectl --context %s get namespaces: %s", ctx, out)
		}
	}
	// The node's kubeconfig names the placeholder servers: point it at each
	// replica in turn.
	for _, s := range []*framework.Server{a, b} {
		out := run(filepath.Join(dir, "node-n1.kubeconfig"), "--server", s.URL, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
		if out != "system:node:n1" {
			t.Errorf("node kubeconfig on %s: whoami = %q", s.URL, out)
		}
	}
}
