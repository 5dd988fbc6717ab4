package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/e2e/framework"
)

// nodeCluster is a capstan server, scheduler and controller-manager as child
// processes, plus node agents started by the test.
type nodeCluster struct {
	*cluster
	nodeDirs map[string]string
}

func startNodeCluster(t *testing.T, cmArgs ...string) *nodeCluster {
	t.Helper()
	requireKubectl(t)
	s := startServer(t)
	c := &nodeCluster{cluster: &cluster{t: t, s: s, cli: s.AdminClient(t), ctx: t.Context()}, nodeDirs: map[string]string{}}
	// Without leader election, so both survive the test's server restart.
	c.process("scheduler", "scheduler", "--kubeconfig", s.Kubeconfig, "--leader-elect=false")
	c.process("controller-manager", append([]string{"controller-manager", "--kubeconfig", s.Kubeconfig, "--leader-elect=false"}, cmArgs...)...)
	return c
}

// node starts a process node agent named name with short back-off and lease settings.
func (c *nodeCluster) node(name string, extra ...string) *exec.Cmd {
	c.t.Helper()
	dir, ok := c.nodeDirs[name]
	if !ok {
		dir = filepath.Join(c.t.TempDir(), name)
		c.nodeDirs[name] = dir
		c.t.Cleanup(func() { killContainers(dir) })
	}
	cmd := c.process("node-"+name, append([]string{"node", "--kubeconfig", c.s.Kubeconfig, "--name", name, "--data-dir", dir,
		"--address", "127.0.0.1", "--listen-address", "127.0.0.1:0", "--restart-backoff", "1s", "--restart-backoff-max", "8s",
		"--lease-renew-interval", "1s", "--sync-period", "200ms"}, extra...)...)
	agenttest.Eventually(c.t, 20*time.Second, "node "+name+" Ready", func() bool {
		n, err := c.cli.Resource("", "v1", "nodes").Get(c.ctx, name)
		return err == nil && nodeReady(n)
	})
	return cmd
}

func nodeReady(n api.Object) bool {
	for _, x := range api.NestedSlice(n, "status", "conditions") {
		if m, ok := x.(map[string]any); ok && m["type"] == "Ready" {
			return m["status"] == "True"
		}
	}
	return false
}

// killContainers SIGKILLs whatever a node's runtime still runs.
func killContainers(dir string) {
	rt, err := containers.NewProcess(filepath.Join(dir, "containers"), []string{capstanBin, "container-shim"}, nil)
	if err != nil {
		return
	}
	list, _ := rt.List(context.Background())
	for _, s := range list {
		rt.Signal(context.Background(), s.Spec.ID, syscall.SIGKILL)
	}
}

// running lists the running containers of a node by pod name.
func (c *nodeCluster) running(node string) map[string]containers.Status {
	rt, err := containers.NewProcess(filepath.Join(c.nodeDirs[node], "containers"), []string{capstanBin, "container-shim"}, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	list, _ := rt.List(context.Background())
	out := map[string]containers.Status{}
	for _, s := range list {
		if s.State == containers.StateRunning {
			out[s.Spec.Labels["capstan.io/pod-name"]] = s
		}
	}
	return out
}

func (c *nodeCluster) pod(name string) *corev1.Pod {
	o, err := c.cli.Resource("", "v1", "pods").Namespace("default").Get(c.ctx, name)
	if err != nil {
		return nil
	}
	b, _ := json.Marshal(o)
	var p corev1.Pod
	json.Unmarshal(b, &p)
	return &p
}

func (c *nodeCluster) waitPod(name, what string, timeout time.Duration, cond func(*corev1.Pod) bool) *corev1.Pod {
	c.t.Helper()
	var p *corev1.Pod
	agenttest.Eventually(c.t, timeout, name+": "+what, func() bool {
		p = c.pod(name)
		return p != nil && cond(p)
	})
	return p
}

func podIsReady(p *corev1.Pod) bool {
	for _, x := range p.Status.Conditions {
		if x.Type == corev1.PodReady {
			return x.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (c *nodeCluster) apply(manifest string) {
	c.t.Helper()
	f := filepath.Join(c.t.TempDir(), "m.yaml")
	os.WriteFile(f, []byte(manifest), 0o644)
	c.kubectl("apply", "-f", f)
}

func alivePID(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// One node agent with real processes, driven by kubectl: a Deployment runs
// with live PIDs; kill -9 restarts a container; crash loops back off; logs
// and logs -f; an exec readiness probe gates Ready; delete stops the process.
func TestNodeAgentProcesses(t *testing.T) {
	c := startNodeCluster(t)
	c.node("n1")

	c.apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: sleep}
spec:
  replicas: 3
  selector: {matchLabels: {app: sleep}}
  template:
    metadata: {labels: {app: sleep}}
    spec:
      terminationGracePeriodSeconds: 3
      containers:
      - name: c
        image: busybox
        command: ["sh", "-c", "echo started $(POD); trap 'echo bye; exit 0' TERM; while true; do sleep 0.1; done"]
        env: [{name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
`)
	c.converged("default", "sleep", 3, 30*time.Second)
	run := c.running("n1")
	var names []string
	for _, p := range c.pods("default", "sleep") {
		names = append(names, p.Name())
		if !alivePID(run[p.Name()].PID) {
			t.Fatalf("pod %s: no live process (%+v)", p.Name(), run[p.Name()])
		}
	}

	t.Run("kill -9 restarts", func(t *testing.T) {
		victim := names[0]
		syscall.Kill(run[victim].PID, syscall.SIGKILL)
		c.waitPod(victim, "restartCount 1 and Running", 20*time.Second, func(p *corev1.Pod) bool {
			cs := p.Status.ContainerStatuses
			return len(cs) == 1 && cs[0].RestartCount == 1 && cs[0].State.Running != nil && podIsReady(p)
		})
		if out := c.kubectl("get", "pod", victim); !strings.Contains(out, "Running") {
			t.Errorf("kubectl get pod: %s", out)
		}
	})

	t.Run("logs", func(t *testing.T) {
		name := names[1]
		if out := c.kubectl("logs", name); out != "started "+name+"\n" {
			t.Errorf("kubectl logs = %q", out)
		}
		c.apply(`apiVersion: v1
kind: Pod
metadata: {name: ticker}
spec:
  nodeName: n1
  containers:
  - {name: c, image: busybox, command: ["sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done"]}
`)
		c.waitPod("ticker", "Running", 20*time.Second, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
		defer cancel()
		cmd := framework.KubectlCommand(ctx, c.s, "logs", "-f", "ticker")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cancel(); cmd.Wait() }()
		sc := bufio.NewScanner(out)
		var last int
		for range 8 { // 8 lines arrive over ~1.6s while following
			if !sc.Scan() {
				t.Fatalf("kubectl logs -f ended: %v", sc.Err())
			}
			var n int
			if _, err := fmt.Sscanf(sc.Text(), "tick %d", &n); err != nil || (last != 0 && n != last+1) {
				t.Fatalf("logs -f line %q after %d", sc.Text(), last)
			}
			last = n
		}
	})

	t.Run("crash loop backs off", func(t *testing.T) {
		c.apply(`apiVersion: v1
kind: Pod
metadata: {name: crasher}
spec:
  nodeName: n1
  containers:
  - {name: c, image: busybox, command: ["sh", "-c", "echo oops; exit 1"]}
`)
		var starts []time.Time
		seen := int32(-1)
		agenttest.Eventually(t, 30*time.Second, "3 restarts in CrashLoopBackOff", func() bool {
			p := c.pod("crasher")
			if p == nil || len(p.Status.ContainerStatuses) != 1 {
				return false
			}
			cs := p.Status.ContainerStatuses[0]
			if cs.RestartCount != seen {
				seen = cs.RestartCount
				starts = append(starts, time.Now())
			}
			return cs.RestartCount >= 3 && cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff"
		})
		if n := len(starts); n >= 3 && starts[n-1].Sub(starts[n-2]) <= starts[n-2].Sub(starts[n-3])-300*time.Millisecond {
			t.Errorf("back-off did not grow: restarts at %v", starts)
		}
		if out := c.kubectl("get", "pod", "crasher"); !strings.Contains(out, "CrashLoopBackOff") && !strings.Contains(out, "Error") {
			t.Errorf("kubectl get pod crasher: %s", out)
		}
		if out := c.kubectl("logs", "crasher", "--previous"); out != "oops\n" {
			t.Errorf("logs --previous = %q", out)
		}
	})

	t.Run("readiness probe gates Ready", func(t *testing.T) {
		flag := filepath.Join(t.TempDir(), "ready")
		c.apply(`apiVersion: v1
kind: Pod
metadata: {name: gated}
spec:
  nodeName: n1
  containers:
  - name: c
    image: busybox
    command: ["sleep", "300"]
    readinessProbe: {exec: {command: ["test", "-f", "` + flag + `"]}, periodSeconds: 1}
`)
		c.waitPod("gated", "Running", 20*time.Second, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		time.Sleep(2 * time.Second)
		if podIsReady(c.pod("gated")) {
			t.Fatal("Ready before the probe passed")
		}
		os.WriteFile(flag, nil, 0o644)
		c.waitPod("gated", "Ready", 10*time.Second, podIsReady)
	})

	t.Run("server down 10s", func(t *testing.T) {
		before := c.running("n1")
		if err := c.s.Bounce(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		after := c.running("n1")
		for name, st := range before {
			if after[name].Spec.ID != st.Spec.ID && name != "crasher" {
				t.Errorf("pod %s: container %s replaced by %q during the outage", name, st.Spec.ID, after[name].Spec.ID)
			}
		}
		// Status catches up: the crash loop kept counting while the hub was away.
		p := c.pod("crasher")
		if p == nil {
			t.Fatal("crasher gone")
		}
		n := p.Status.ContainerStatuses[0].RestartCount
		c.waitPod("crasher", "restartCount advances after the outage", 30*time.Second, func(p *corev1.Pod) bool {
			return p.Status.ContainerStatuses[0].RestartCount > n
		})
		c.converged("default", "sleep", 3, 30*time.Second)
	})

	t.Run("delete stops the process within its grace", func(t *testing.T) {
		name := names[2]
		pid := c.running("n1")[name].PID
		start := time.Now()
		c.kubectl("delete", "pod", name) // waits until the pod is gone
		if d := time.Since(start); d > 6*time.Second {
			t.Errorf("kubectl delete took %v (grace 3s)", d)
		}
		if alivePID(pid) {
			t.Errorf("process %d alive after kubectl delete returned", pid)
		}
		c.converged("default", "sleep", 3, 30*time.Second)
	})
}

// Two nodes: stopping one agent makes its node NotReady and its pods are
// recreated on the other.
func TestNodeAgentFailover(t *testing.T) {
	c := startNodeCluster(t, "--node-monitor-grace-period", "3s", "--pod-eviction-timeout", "1s")
	a := c.node("a")
	c.node("b")
	c.apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: spread}
spec:
  replicas: 4
  selector: {matchLabels: {app: spread}}
  template:
    metadata: {labels: {app: spread}}
    spec:
      terminationGracePeriodSeconds: 1
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 1}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 1}
      containers:
      - {name: c, image: busybox, command: ["sleep", "300"]}
`)
	c.converged("default", "spread", 4, 30*time.Second)
	a.Process.Signal(syscall.SIGTERM)
	a.Wait()
	agenttest.Eventually(t, 30*time.Second, "node a not Ready", func() bool {
		n, err := c.cli.Resource("", "v1", "nodes").Get(c.ctx, "a")
		return err == nil && !nodeReady(n)
	})
	agenttest.Eventually(t, 60*time.Second, "4 ready pods, all on b", func() bool {
		ps := c.pods("default", "spread")
		ready := 0
		for _, p := range ps {
			if api.NestedString(p, "spec", "nodeName") == "b" && api.NestedString(p, "status", "phase") == "Running" {
				ready++
			}
		}
		return ready == 4
	})
}

// 100 simulated nodes (--runtime=fake --count=100) run 3,000 pods.
func TestFakeNodes3000Pods(t *testing.T) {
	if framework.RaceEnabled {
		t.Skip("scale run: skipped under -race")
	}
	c := startNodeCluster(t)
	c.process("fake-nodes", "node", "--kubeconfig", c.s.Kubeconfig, "--runtime", "fake", "--count", "100", "--name", "fake",
		"--data-dir", t.TempDir(), "--sync-period", "1s")
	agenttest.Eventually(t, 60*time.Second, "100 fake nodes", func() bool {
		l, err := c.cli.Resource("", "v1", "nodes").List(c.ctx, client.ListOptions{})
		return err == nil && len(l.Items) == 100
	})
	start := time.Now()
	pods := c.cli.Resource("", "v1", "pods").Namespace("default")
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 3000; i += 32 {
				pod := api.Object{"apiVersion": "v1", "kind": "Pod",
					"metadata": map[string]any{"name": fmt.Sprintf("sim-%04d", i), "labels": map[string]any{"app": "sim"}},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "command": []any{"sleep", "inf"}}}}}
				var err error
				for try := 0; try < 100; try++ { // 429s are expected at this rate
					if _, err = pods.Create(c.ctx, pod); err == nil || apierrors.IsAlreadyExists(err) {
						err = nil
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d creates failed", n)
	}
	created := time.Since(start)
	agenttest.Eventually(t, 180*time.Second, "3000 pods Running", func() bool {
		l, err := pods.List(c.ctx, client.ListOptions{LabelSelector: "app=sim"})
		if err != nil {
			return false
		}
		n := 0
		for _, p := range l.Items {
			if api.NestedString(p, "status", "phase") == "Running" {
				n++
			}
		}
		return n == 3000
	})
	t.Logf("3000 pods on 100 fake nodes: created in %v, all Running after %v", created, time.Since(start))
}

// `capstan up` alone runs the README walk: a node, the example web
// Deployment Running, its log, scaling and curl to a pod.
func TestUpWalkthrough(t *testing.T) {
	requireKubectl(t)
	if testing.Short() {
		t.Skip("e2e: skipped under -short")
	}
	s := framework.StartUp(t, capstanBin, "--name", "up-node", "--address", "127.0.0.1", "--listen-address", "127.0.0.1:0",
		"--node-data-dir", filepath.Join(t.TempDir(), "node"))
	c := &nodeCluster{cluster: &cluster{t: t, s: s, cli: s.AdminClient(t), ctx: t.Context()}, nodeDirs: map[string]string{"up-node": ""}}
	agenttest.Eventually(t, 20*time.Second, "node up-node Ready", func() bool {
		n, err := c.cli.Resource("", "v1", "nodes").Get(c.ctx, "up-node")
		return err == nil && nodeReady(n)
	})
	root, _ := filepath.Abs("..")
	c.kubectl("apply", "-f", filepath.Join(root, "examples", "web.yaml"))
	c.converged("default", "web", 2, 30*time.Second)
	pod := c.pods("default", "web")[0].Name()
	var port string
	agenttest.Eventually(t, 10*time.Second, "the server's port in its log", func() bool {
		out, _ := framework.Kubectl(t, s, "logs", pod)
		if _, rest, ok := strings.Cut(out, " port "); ok {
			port, _, _ = strings.Cut(rest, " ")
		}
		return port != ""
	})
	resp, err := http.Get("http://127.0.0.1:" + port + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(body)) != pod {
		t.Errorf("curl / = %q, want the pod name %q", body, pod)
	}
	c.kubectl("scale", "deployment", "web", "--replicas=3")
	c.converged("default", "web", 3, 30*time.Second)
}
