package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/controllers/controllertest"
	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/e2e/framework"
)

// cluster is a capstan server with a scheduler, controller-managers, Node
// objects and a fake kubelet, all driven from the test.
type cluster struct {
	t   *testing.T
	s   *framework.Server
	cli *client.Client
	ctx context.Context
}

func startCluster(t *testing.T, nodes int) *cluster {
	t.Helper()
	requireKubectl(t)
	s := startServer(t)
	cli := adminClient(t, s)
	c := &cluster{t: t, s: s, cli: cli, ctx: t.Context()}
	for i := range nodes {
		createNode(t, c.ctx, cli, fmt.Sprintf("node-%d", i), "64Gi")
	}
	c.process("scheduler", "scheduler", "--kubeconfig", s.Kubeconfig)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); controllertest.FakeKubelet(cli, true)(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return c
}

// process starts `capstan args...` and stops it at cleanup.
func (c *cluster) process(name string, args ...string) *exec.Cmd {
	c.t.Helper()
	return startProcess(c.t, name, args...)
}

// startProcess starts `capstan args...` and stops it at t's cleanup (SIGTERM),
// printing its log if the test failed.
func startProcess(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd, _ := startProcessLog(t, name, args...)
	return cmd
}

// startProcessLog is startProcess that also returns the process's log file.
func startProcessLog(t *testing.T, name string, args ...string) (*exec.Cmd, *os.File) {
	t.Helper()
	cmd := exec.Command(capstanBin, args...)
	logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("%s log (tail):\n%s", name, b)
		}
	})
	return cmd, logf
}

// controllerManager starts a controller-manager replica with short leases.
func (c *cluster) controllerManager(id, kubeconfig string) *exec.Cmd {
	// The nodes are simulated and renew no Lease: a long grace period keeps
	// nodelifecycle from marking them unreachable however long the test takes.
	return c.process("controller-manager-"+id, "controller-manager", "--kubeconfig", kubeconfig, "--leader-elect-identity", id, "--node-monitor-grace-period=1h",
		"--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1500ms", "--leader-elect-retry-period", "200ms")
}

func (c *cluster) kubectl(args ...string) string {
	c.t.Helper()
	out, err := framework.Kubectl(c.t, c.s, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// pods lists the pods of app in ns that are not being deleted.
func (c *cluster) pods(ns, app string) []api.Object {
	c.t.Helper()
	l, err := c.cli.Resource("", "v1", "pods").Namespace(ns).List(c.ctx, client.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		c.t.Fatal(err)
	}
	var out []api.Object
	for _, p := range l.Items {
		if meta.PodActive(p) {
			out = append(out, p)
		}
	}
	return out
}

// converged waits until app has exactly n active pods, all bound and ready.
func (c *cluster) converged(ns, app string, n int, timeout time.Duration) {
	c.t.Helper()
	got := 0
	agenttest.Eventually(c.t, timeout, fmt.Sprintf("%d ready pods of %s (last count %d)", n, app, got), func() bool {
		ps := c.pods(ns, app)
		got = len(ps)
		if len(ps) != n {
			return false
		}
		for _, p := range ps {
			if ok, _ := meta.PodReady(p); !ok || api.NestedString(p, "spec", "nodeName") == "" {
				return false
			}
		}
		return true
	})
}

func (c *cluster) leaseHolder() string {
	o, err := c.cli.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-system").Get(c.ctx, "capstan-controller-manager")
	if err != nil {
		return ""
	}
	return api.NestedString(o, "spec", "holderIdentity")
}

// TestControllerManager drives a Deployment through kubectl against a server,
// a scheduler and two controller-manager replicas: create, scale, repair,
// rolling update within surge limits, rollout undo/pause/resume/restart,
// leader handover and namespace deletion.
func TestControllerManager(t *testing.T) {
	c := startCluster(t, 2)
	cms := map[string]*exec.Cmd{"cm-a": c.controllerManager("cm-a", c.s.Kubeconfig)}
	agenttest.Eventually(t, 10*time.Second, "a leader", func() bool { return c.leaseHolder() == "cm-a" })
	cms["cm-b"] = c.controllerManager("cm-b", c.s.Kubeconfig)

	c.kubectl("create", "deployment", "web", "--image=busybox", "--replicas=3")
	c.converged("default", "web", 3, 30*time.Second)
	c.kubectl("rollout", "status", "deployment/web", "--timeout=30s")
	if out := c.kubectl("get", "serviceaccount", "default", "-o", "name"); !strings.Contains(out, "serviceaccount/default") {
		t.Errorf("no default service account: %q", out)
	}

	t.Run("scale", func(t *testing.T) {
		c.kubectl("scale", "deployment/web", "--replicas=5")
		c.converged("default", "web", 5, 30*time.Second)
		c.kubectl("scale", "deployment/web", "--replicas=1")
		c.converged("default", "web", 1, 30*time.Second)
	})

	t.Run("repair", func(t *testing.T) {
		victim := c.pods("default", "web")[0].Name()
		c.kubectl("delete", "pod", victim, "--wait=false")
		c.converged("default", "web", 1, 30*time.Second)
		if c.pods("default", "web")[0].Name() == victim {
			t.Fatal("deleted pod still counted")
		}
		rs := strings.TrimSpace(c.kubectl("get", "rs", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}"))
		c.kubectl("delete", "rs", rs, "--wait=false")
		agenttest.Eventually(t, 30*time.Second, "replica set recreated", func() bool {
			o, err := c.cli.Resource("apps", "v1", "replicasets").Namespace("default").Get(c.ctx, rs)
			return err == nil && !meta.Deleting(o)
		})
		c.converged("default", "web", 1, 30*time.Second)
	})

	t.Run("rollout", func(t *testing.T) {
		c.kubectl("patch", "deployment/web", "-p", `{"spec":{"replicas":4,"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}`)
		c.converged("default", "web", 4, 30*time.Second)
		c.kubectl("rollout", "status", "deployment/web", "--timeout=30s")
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		peak := 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				peak = max(peak, len(c.pods("default", "web")))
				time.Sleep(10 * time.Millisecond)
			}
		}()
		c.kubectl("set", "image", "deployment/web", "busybox=busybox:1.36")
		c.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
		cancel()
		wg.Wait()
		if peak > 5 {
			t.Errorf("saw %d pods during a rollout of 4 replicas with maxSurge 1", peak)
		}
		if h := c.kubectl("rollout", "history", "deployment/web"); !strings.Contains(h, "1 ") || !strings.Contains(h, "2 ") {
			t.Errorf("rollout history lacks revisions 1 and 2:\n%s", h)
		}
		c.kubectl("rollout", "undo", "deployment/web")
		c.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
		if img := c.kubectl("get", "deployment/web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); img != "busybox" {
			t.Errorf("image after undo = %q, want busybox", img)
		}
		c.kubectl("rollout", "pause", "deployment/web")
		c.kubectl("set", "image", "deployment/web", "busybox=busybox:1.37")
		time.Sleep(300 * time.Millisecond) // a paused Deployment must not start a ReplicaSet meanwhile
		if n := len(strings.Fields(c.kubectl("get", "rs", "-l", "app=web", "-o", "name"))); n != 2 {
			t.Errorf("paused deployment has %d replica sets, want 2:\n%s", n, c.kubectl("get", "rs", "-o", "jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations} {.spec.template}{\"\\n\"}{end}"))
			t.Logf("deployment template: %s", c.kubectl("get", "deploy", "web", "-o", "jsonpath={.spec.template}"))
		}
		c.kubectl("rollout", "resume", "deployment/web")
		c.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
		c.kubectl("rollout", "restart", "deployment/web")
		c.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
		c.converged("default", "web", 4, 30*time.Second)
	})

	t.Run("leader handover", func(t *testing.T) {
		leader := c.leaseHolder()
		victim, ok := cms[leader]
		if !ok {
			t.Fatalf("lease holder %q is not one of ours", leader)
		}
		victim.Process.Signal(syscall.SIGKILL)
		agenttest.Eventually(t, 10*time.Second, "lease holder changes", func() bool {
			h := c.leaseHolder()
			return h != "" && h != leader
		})
		c.kubectl("scale", "deployment/web", "--replicas=2")
		c.converged("default", "web", 2, 30*time.Second)
	})

	t.Run("namespace deletion", func(t *testing.T) {
		c.kubectl("create", "namespace", "doomed")
		c.kubectl("-n", "doomed", "create", "deployment", "api", "--image=busybox", "--replicas=2")
		c.kubectl("-n", "doomed", "create", "configmap", "cfg", "--from-literal=a=b")
		c.converged("doomed", "api", 2, 30*time.Second)
		c.kubectl("delete", "namespace", "doomed", "--timeout=60s")
		if _, err := c.cli.Resource("", "v1", "namespaces").Get(c.ctx, "doomed"); !apierrors.IsNotFound(err) {
			t.Fatalf("namespace after delete: %v", err)
		}
	})
}
