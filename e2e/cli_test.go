package e2e

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
)

// TestKubeconfigCommand: `capstan kubeconfig` prints a kubeconfig kubectl can use.
func TestKubeconfigCommand(t *testing.T) {
	requireKubectl(t)
	s := startServer(t)
	out, err := exec.Command(capstanBin, "kubeconfig", "--data-dir", s.DataDir, "--server", s.URL).Output()
	if err != nil {
		t.Fatalf("capstan kubeconfig: %v", err)
	}
	path := filepath.Join(t.TempDir(), "printed.kubeconfig")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", "get", "namespaces", "-o", "name", "--cache-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "KUBECONFIG="+path)
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "namespace/kube-system") {
		t.Fatalf("kubectl with the printed kubeconfig: %v\n%s", err, got)
	}
}

// TestRawWatchWithToken is the README's curl: a bare ?watch with the admin token streams ADDED frames.
func TestRawWatchWithToken(t *testing.T) {
	requireKubectl(t)
	s := startServer(t)
	if _, err := framework.Kubectl(t, s, "create", "configmap", "raw", "-n", "default", "--from-literal=a=b"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/namespaces/default/configmaps?watch&resourceVersion=0", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("watch answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"type":"ADDED","object":{"metadata":{"resourceVersion":`) || !strings.Contains(line, `"name":"raw"`) {
		t.Fatalf("first frame %q (%v)", line, err)
	}
	unauth, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/namespaces/default/configmaps?watch", nil)
	r2, err := s.HTTPClient().Do(unauth)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusUnauthorized {
		t.Fatalf("watch without a credential: %d, want 401", r2.StatusCode)
	}
}
