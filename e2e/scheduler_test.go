package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
)

// TestSchedulerReplicas: two `capstan scheduler` processes share one Lease;
// the leader binds pods, and when it is killed (SIGKILL, no release) the
// other takes over within the lease duration plus a retry and binds the next pod.
func TestSchedulerReplicas(t *testing.T) {
	s := startServer(t)
	cfg, err := client.LoadKubeconfig(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	nodes := cli.Resource("", "v1", "nodes")
	n, err := nodes.Create(ctx, api.Object{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n1"}})
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]any{"cpu": "4", "memory": "8Gi", "pods": "110"}
	n["status"] = map[string]any{"allocatable": res, "capacity": res, "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	if _, err := nodes.Update(ctx, n, "status"); err != nil {
		t.Fatal(err)
	}

	procs := map[string]*exec.Cmd{}
	for _, id := range []string{"a", "b"} {
		cmd := exec.Command(capstanBin, "scheduler", "--kubeconfig", s.Kubeconfig, "--log-level", "debug",
			"--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1500ms", "--leader-elect-retry-period", "200ms")
		logf, err := os.Create(filepath.Join(t.TempDir(), "scheduler-"+id+".log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[id] = cmd
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("scheduler %s log:\n%s", id, b)
			}
		})
	}

	bindPod := func(name string) {
		t.Helper()
		pods := cli.Resource("", "v1", "pods").Namespace("default")
		if _, err := pods.Create(ctx, api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}); err != nil {
			t.Fatal(err)
		}
		agenttest.Eventually(t, 20*time.Second, "pod "+name+" bound", func() bool {
			o, err := pods.Get(ctx, name)
			return err == nil && api.NestedString(o, "spec", "nodeName") == "n1"
		})
	}
	holder := func() string {
		o, err := cli.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-system").Get(ctx, "capstan-scheduler")
		if err != nil {
			return ""
		}
		return api.NestedString(o, "spec", "holderIdentity")
	}

	bindPod("first")
	leader := holder()
	if leader == "" {
		t.Fatal("no lease holder")
	}
	// Both replicas share a hostname, so find the leader by its log.
	var victim *exec.Cmd
	for id, cmd := range procs {
		b, _ := os.ReadFile(cmd.Stdout.(*os.File).Name())
		if strings.Contains(string(b), "started leading") {
			victim = cmd
			t.Logf("leader is replica %s (%s)", id, leader)
		}
	}
	if victim == nil {
		t.Fatal("no replica logged that it leads")
	}
	killed := time.Now()
	victim.Process.Signal(syscall.SIGKILL)
	bindPod("second")
	if took := time.Since(killed); took > 2*time.Second+time.Second {
		t.Errorf("takeover and binding took %v, want within the 2s lease plus a retry", took)
	}
	if h := holder(); h == leader || h == "" {
		t.Fatalf("lease holder after kill = %q, was %q", h, leader)
	}
}
