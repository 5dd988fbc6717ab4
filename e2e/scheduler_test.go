package e2e

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/e2e/framework"
)

// TestSchedulerReplicas: two `capstan scheduler` processes share one Lease;
// the leader binds pods, and when it is killed (SIGKILL, no release) the
// other takes over within the lease duration plus a retry and binds the next pod.
func TestSchedulerReplicas(t *testing.T) {
	s := startServer(t)
	cli := adminClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	createNode(t, ctx, cli, "n1", "8Gi")

	procs := map[string]*schedulerProc{}
	for _, id := range []string{"a", "b"} {
		procs[id] = startScheduler(t, s, id)
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
	for id, p := range procs {
		b, _ := os.ReadFile(p.log.Name())
		if strings.Contains(string(b), "started leading") {
			victim = p.cmd
			t.Logf("leader is replica %s (%s)", id, leader)
		}
	}
	if victim == nil {
		t.Fatal("no replica logged that it leads")
	}
	killed := time.Now()
	victim.Process.Signal(syscall.SIGKILL)
	bindPod("second")
	took := time.Since(killed)
	t.Logf("leader killed; the other replica bound the next pod after %v", took)
	if took > 2*time.Second+time.Second {
		t.Errorf("takeover and binding took %v, want within the 2s lease plus a retry", took)
	}
	if h := holder(); h == leader || h == "" {
		t.Fatalf("lease holder after kill = %q, was %q", h, leader)
	}
}

// TestKubectlDescribeUnschedulable: a pod that fits nowhere explains itself in
// `kubectl describe` (condition and FailedScheduling event).
func TestKubectlDescribeUnschedulable(t *testing.T) {
	requireKubectl(t)
	s := startServer(t)
	cli := adminClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	createNode(t, ctx, cli, "small", "1Gi")
	startScheduler(t, s, "only", "--leader-elect=false")
	if _, err := cli.Resource("", "v1", "pods").Namespace("default").Create(ctx, api.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "huge"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox",
			"resources": map[string]any{"requests": map[string]any{"memory": "4Gi"}}}}}}); err != nil {
		t.Fatal(err)
	}
	const want = "0/1 nodes are available: 1 Insufficient memory."
	var out string
	// The condition and the event are written separately: wait for both.
	agenttest.Eventually(t, 20*time.Second, "kubectl describe to show FailedScheduling and the PodScheduled condition", func() bool {
		out, _ = framework.Kubectl(t, s, "describe", "pod", "huge", "-n", "default")
		return strings.Contains(out, "FailedScheduling") && strings.Contains(out, want) && strings.Contains(out, "PodScheduled")
	})
}

// schedulerProc is a `capstan scheduler` child process.
type schedulerProc struct {
	cmd *exec.Cmd
	log *os.File // its stdout and stderr
}

// startScheduler runs `capstan scheduler` against s with short leader
// election timings; it is stopped when t ends.
func startScheduler(t *testing.T, s *framework.Server, id string, extra ...string) *schedulerProc {
	t.Helper()
	args := append([]string{"scheduler", "--kubeconfig", s.Kubeconfig, "--log-level", "debug",
		"--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1500ms", "--leader-elect-retry-period", "200ms"}, extra...)
	cmd, logf := startProcessLog(t, "scheduler-"+id, args...)
	return &schedulerProc{cmd: cmd, log: logf}
}

func adminClient(t *testing.T, s *framework.Server) *client.Client {
	t.Helper()
	cfg, err := client.LoadKubeconfig(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// createNode registers a Ready node with 4 cpus, memory and 110 pods allocatable.
func createNode(t *testing.T, ctx context.Context, cli *client.Client, name, memory string) {
	t.Helper()
	nodes := cli.Resource("", "v1", "nodes")
	n, err := nodes.Create(ctx, api.Object{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name}})
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]any{"cpu": "4", "memory": memory, "pods": "110"}
	n["status"] = map[string]any{"allocatable": res, "capacity": res, "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	if _, err := nodes.Update(ctx, n, "status"); err != nil {
		t.Fatal(err)
	}
}
