package framework

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubectlTimeout bounds one kubectl run.
const kubectlTimeout = 60 * time.Second

// Kubectl runs the kubectl on PATH against s and returns its stdout. A failed
// run's error carries kubectl's stderr, which is where Kubernetes-style
// messages such as `Error from server (NotFound): ...` appear.
func Kubectl(t testing.TB, s *Server, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), kubectlTimeout)
	defer cancel()
	cmd := KubectlCommand(ctx, s, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", err, ctx.Err())
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// KubectlCommand returns an unstarted kubectl command aimed at s, for runs that
// stream output (such as `get -w`). It stops when ctx ends.
func KubectlCommand(ctx context.Context, s *Server, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+s.Kubeconfig,
		// A discovery cache per server: ports are reused across servers, and a
		// shared cache in $HOME could describe another server's resources.
		"KUBECACHEDIR="+filepath.Join(filepath.Dir(s.DataDir), "kubectl-cache"),
	)
	return cmd
}

// RestConfig returns a client-go config for s's admin kubeconfig.
func RestConfig(t testing.TB, s *Server) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		t.Fatalf("loading %s: %v", s.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 100, 200 // tests are bursty; the default 5 QPS only slows them down
	return cfg
}

// KubectlCombined runs kubectl like Kubectl but returns stdout and stderr
// together, for checking the warnings kubectl prints.
func KubectlCombined(t testing.TB, s *Server, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), kubectlTimeout)
	defer cancel()
	out, err := KubectlCommand(ctx, s, args...).CombinedOutput()
	return string(out), err
}
