package nodeagent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
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
	"github.com/capstan-io/capstan/agents/containers/cgroups"
	"github.com/capstan-io/capstan/agents/containers/cgroups/cgroupstest"
	"github.com/capstan-io/capstan/agents/nodeagent"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

// The test binary doubles as the container shim when this variable is set.
const shimEnv = "CAPSTAN_TEST_CONTAINER_SHIM"

func TestMain(m *testing.M) {
	if os.Getenv(shimEnv) == "1" {
		os.Exit(containers.ShimMain(os.Args[1:]))
	}
	agenttest.Main(m)
}

type env struct {
	t   *testing.T
	cli *client.Client
	ca  []byte
	// agentCli, if set, is the agent's client (through a proxy the test can cut).
	agentCli *client.Client
	token    string
	dir      string
	rt       containers.Runtime
	cancel   context.CancelFunc
	done     chan struct{}
}

// newProcessRuntime makes a process runtime; cg enforces limits (nil: none).
func newProcessRuntime(t *testing.T, dir string, cg *cgroups.Manager) containers.Runtime {
	t.Helper()
	t.Setenv(shimEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := containers.NewProcess(filepath.Join(dir, "containers"), []string{exe}, cg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		list, _ := rt.List(context.Background())
		for _, c := range list {
			rt.Signal(context.Background(), c.Spec.ID, syscall.SIGKILL)
		}
	})
	return rt
}

// start runs an agent for node "n1" on a fresh hub, enforcing no limits.
func start(t *testing.T) *env { return startWith(t, nil) }

// startWith is start with cg enforcing containers' limits.
func startWith(t *testing.T, cg *cgroups.Manager) *env {
	hub := apiservertest.Start(t)
	e := &env{t: t, cli: hub.Client, dir: t.TempDir(), ca: hub.PKI().CAPEM, token: hub.Token}
	e.rt = newProcessRuntime(t, e.dir, cg)
	e.run()
	return e
}

func (e *env) run() {
	cli := e.cli
	if e.agentCli != nil {
		cli = e.agentCli
	}
	a, err := nodeagent.New(nodeagent.Config{Client: cli, NodeName: "n1", Runtime: e.rt, DataDir: e.dir,
		Address: "127.0.0.1", BackoffBase: 200 * time.Millisecond, BackoffMax: 2 * time.Second, SyncPeriod: 100 * time.Millisecond,
		LeaseRenewInterval: time.Second, ListenAddress: "127.0.0.1:0", ClientCA: e.ca})
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel, e.done = cancel, make(chan struct{})
	go func() { defer close(e.done); a.Run(ctx) }()
	var once sync.Once
	e.t.Cleanup(func() { once.Do(e.stop) })
}

func (e *env) stop() {
	e.cancel()
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		e.t.Error("agent did not stop within 10s")
	}
}

func (e *env) createPod(spec string) string {
	e.t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		e.t.Fatal(err)
	}
	s["nodeName"] = "n1"
	name := "p" + strings.ToLower(strings.ReplaceAll(e.t.Name(), "/", "-"))
	name = strings.ReplaceAll(name, "_", "-")
	o := api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": "default"}, "spec": s}
	if _, err := e.cli.Resource("", "v1", "pods").Namespace("default").Create(context.Background(), o); err != nil {
		e.t.Fatalf("create pod: %v", err)
	}
	return name
}

func (e *env) pod(name string) *corev1.Pod {
	o, err := e.cli.Resource("", "v1", "pods").Namespace("default").Get(context.Background(), name)
	if err != nil {
		return nil
	}
	b, _ := json.Marshal(o)
	var p corev1.Pod
	json.Unmarshal(b, &p)
	return &p
}

func (e *env) waitPod(name, what string, cond func(p *corev1.Pod) bool) *corev1.Pod {
	e.t.Helper()
	var p *corev1.Pod
	deadline := time.Now().Add(20 * time.Second)
	for {
		if p = e.pod(name); p != nil && cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(p, "", " ")
			e.t.Fatalf("timed out waiting for %s: %s; pod: %s", name, what, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (e *env) running(name string) containers.Status {
	e.t.Helper()
	list, _ := e.rt.List(context.Background())
	for _, c := range list {
		if c.Spec.Labels["capstan.io/pod-name"] == name && c.State == containers.StateRunning {
			return c
		}
	}
	e.t.Fatalf("no running container for %s", name)
	return containers.Status{}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestNodeRegistration(t *testing.T) {
	e := start(t)
	var n corev1.Node
	agenttest.Eventually(t, 10*time.Second, "node registered and Ready", func() bool {
		o, err := e.cli.Resource("", "v1", "nodes").Get(context.Background(), "n1")
		if err != nil {
			return false
		}
		b, _ := json.Marshal(o)
		json.Unmarshal(b, &n)
		return len(n.Status.Conditions) == 4
	})
	if n.Labels["kubernetes.io/hostname"] != "n1" || n.Labels["kubernetes.io/os"] == "" || n.Labels["kubernetes.io/arch"] == "" {
		t.Errorf("labels = %v", n.Labels)
	}
	if n.Status.NodeInfo.KubeletVersion != nodeagent.KubeletVersion || n.Status.Capacity.Pods().Value() != 110 || n.Status.Capacity.Memory().Value() == 0 {
		t.Errorf("nodeInfo/capacity = %+v %v", n.Status.NodeInfo, n.Status.Capacity)
	}
	for _, c := range n.Status.Conditions {
		want := corev1.ConditionFalse
		if c.Type == corev1.NodeReady {
			want = corev1.ConditionTrue
		}
		if c.Status != want {
			t.Errorf("condition %s = %s", c.Type, c.Status)
		}
	}
	if len(n.Status.Addresses) == 0 || n.Status.Addresses[0].Address != "127.0.0.1" {
		t.Errorf("addresses = %v", n.Status.Addresses)
	}
	agenttest.Eventually(t, 10*time.Second, "node lease", func() bool {
		l, err := e.cli.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-node-lease").Get(context.Background(), "n1")
		return err == nil && api.NestedString(l, "spec", "holderIdentity") == "n1"
	})
}

// A running pod: Ready with a live process; kill -9 restarts it; a graceful
// delete stops the process and removes the pod.
func TestPodRunKillRestartDelete(t *testing.T) {
	e := start(t)
	name := e.createPod(`{"terminationGracePeriodSeconds":5,"containers":[{"name":"c","image":"sleep","command":["sleep","300"]}]}`)
	p := e.waitPod(name, "Running and Ready", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && ready(p) })
	if p.Status.PodIP != "127.0.0.1" || p.Status.HostIP != "127.0.0.1" {
		t.Errorf("podIP %q hostIP %q", p.Status.PodIP, p.Status.HostIP)
	}
	c := e.running(name)
	if !alive(c.PID) {
		t.Fatalf("pid %d not alive", c.PID)
	}
	syscall.Kill(c.PID, syscall.SIGKILL)
	p = e.waitPod(name, "restarted once", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].RestartCount == 1 && cs[0].State.Running != nil && ready(p)
	})
	if lt := p.Status.ContainerStatuses[0].LastTerminationState.Terminated; lt == nil || lt.ExitCode != 137 || lt.Reason != "Error" {
		t.Errorf("lastState = %+v", lt)
	}
	c = e.running(name)
	start := time.Now()
	if _, err := e.cli.Resource("", "v1", "pods").Namespace("default").Delete(context.Background(), name, nil); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 10*time.Second, "pod deleted", func() bool { return e.pod(name) == nil })
	if alive(c.PID) {
		t.Errorf("process %d still alive after the delete", c.PID)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("delete took %v; sleep ends on SIGTERM", d)
	}
}

func TestCrashLoopBackOff(t *testing.T) {
	e := start(t)
	name := e.createPod(`{"containers":[{"name":"c","image":"busybox","command":["sh","-c","echo boom; exit 1"]}]}`)
	e.waitPod(name, "CrashLoopBackOff after restarts", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].RestartCount >= 2 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "CrashLoopBackOff" &&
			cs[0].LastTerminationState.Terminated != nil && cs[0].LastTerminationState.Terminated.ExitCode == 1 && p.Status.Phase == corev1.PodRunning
	})
}

// Init containers run in order and share an emptyDir with the main
// container, which sees env (values, fieldRef, configMapKeyRef, envFrom) and
// a configMap volume; restartPolicy Never ends the pod Succeeded.
func TestInitEnvVolumesSucceeded(t *testing.T) {
	e := start(t)
	cm := api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg", "namespace": "default"},
		"data": map[string]any{"greeting": "hello", "file.txt": "from-configmap"}}
	if _, err := e.cli.Resource("", "v1", "configmaps").Namespace("default").Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	name := e.createPod(`{"restartPolicy":"Never",
		"volumes":[{"name":"work","emptyDir":{}},{"name":"conf","configMap":{"name":"cfg"}}],
		"initContainers":[
			{"name":"i1","image":"busybox","command":["sh","-c","echo one > $CAPSTAN_VOLUME_WORK/order"],"volumeMounts":[{"name":"work","mountPath":"/work"}]},
			{"name":"i2","image":"busybox","command":["sh","-c","echo two >> $CAPSTAN_VOLUME_WORK/order"],"volumeMounts":[{"name":"work","mountPath":"/work"}]}],
		"containers":[{"name":"main","image":"busybox","command":["sh","-c","echo $(GREETING) $POD $G2 $X_greeting $(cat $CAPSTAN_VOLUME_CONF/file.txt) >> $CAPSTAN_VOLUME_WORK/order"],
			"env":[{"name":"GREETING","value":"hi"},{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
				{"name":"G2","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"greeting"}}}],
			"envFrom":[{"prefix":"X_","configMapRef":{"name":"cfg"}}],
			"volumeMounts":[{"name":"work","mountPath":"/work"},{"name":"conf","mountPath":"/conf"}]}]}`)
	p := e.waitPod(name, "Succeeded", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
	b, err := os.ReadFile(filepath.Join(e.dir, "pods", string(p.UID), "volumes", "work", "order"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "one\ntwo\nhi "+name+" hello hello from-configmap\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if cs := p.Status.ContainerStatuses; len(cs) != 1 || cs[0].State.Terminated == nil || cs[0].State.Terminated.Reason != "Completed" {
		t.Errorf("container statuses = %+v", cs)
	}
	if ics := p.Status.InitContainerStatuses; len(ics) != 2 || ics[1].State.Terminated == nil {
		t.Errorf("init statuses = %+v", ics)
	}
}

func TestNoCommandWaits(t *testing.T) {
	e := start(t)
	name := e.createPod(`{"containers":[{"name":"c","image":"nginx"}]}`)
	e.waitPod(name, "Waiting NoCommand", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "NoCommand" && cs[0].Image == "nginx"
	})
}

func TestReadinessProbeGatesReady(t *testing.T) {
	e := start(t)
	flag := filepath.Join(t.TempDir(), "ready")
	name := e.createPod(`{"containers":[{"name":"c","image":"busybox","command":["sleep","300"],
		"readinessProbe":{"exec":{"command":["test","-f","` + flag + `"]},"periodSeconds":1,"failureThreshold":1}}]}`)
	e.waitPod(name, "Running, not Ready", func(p *corev1.Pod) bool {
		return p.Status.Phase == corev1.PodRunning && len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Running != nil
	})
	time.Sleep(1500 * time.Millisecond)
	if p := e.pod(name); ready(p) {
		t.Fatal("Ready before the probe passed")
	}
	os.WriteFile(flag, nil, 0o644)
	e.waitPod(name, "Ready", ready)
}

func TestLivenessProbeRestarts(t *testing.T) {
	e := start(t)
	name := e.createPod(`{"terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox","command":["sleep","300"],
		"livenessProbe":{"tcpSocket":{"port":1},"periodSeconds":1,"failureThreshold":1}}]}`)
	e.waitPod(name, "restarted by liveness", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].RestartCount >= 1
	})
}

// A restarted agent adopts the running process rather than starting another.
func TestRestartAdoptsContainers(t *testing.T) {
	e := start(t)
	name := e.createPod(`{"containers":[{"name":"c","image":"busybox","command":["sleep","300"]}]}`)
	e.waitPod(name, "Ready", ready)
	before := e.running(name)
	e.stop()
	if !alive(before.PID) {
		t.Fatal("process died with the agent")
	}
	e.run()
	time.Sleep(time.Second)
	p := e.waitPod(name, "Ready", ready)
	after := e.running(name)
	list, _ := e.rt.List(context.Background())
	if after.Spec.ID != before.Spec.ID || len(list) != 1 || p.Status.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("after restart: %d containers, id %s (was %s), restarts %d", len(list), after.Spec.ID, before.Spec.ID, p.Status.ContainerStatuses[0].RestartCount)
	}
}

func (e *env) logs(name, query string) string {
	e.t.Helper()
	b, err := e.cli.Do(context.Background(), client.Request{Method: "GET", Path: "/api/v1/namespaces/default/pods/" + name + "/log", Query: query})
	if err != nil {
		e.t.Fatalf("logs %s?%s: %v", name, query, err)
	}
	return string(b)
}

// The hub proxies pods/log to the agent: whole log, tailLines, timestamps,
// previous, and follow.
func TestLogs(t *testing.T) {
	e := start(t)
	name := e.createPod(`{"containers":[{"name":"c","image":"busybox","command":["sh","-c","echo one; sleep 0.1; echo two >&2; sleep 0.1; printf three; sleep 0.5; echo; echo four; exit 3"]}]}`)
	e.waitPod(name, "restarted once", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].RestartCount >= 1
	})
	if got, want := e.logs(name, "previous=true"), "one\ntwo\nthree\nfour\n"; got != want {
		t.Errorf("previous log = %q, want %q", got, want)
	}
	if got, want := e.logs(name, "previous=true&tailLines=2"), "three\nfour\n"; got != want {
		t.Errorf("tailLines=2 = %q, want %q", got, want)
	}
	if got := e.logs(name, "previous=true&tailLines=1&timestamps=true"); !strings.HasSuffix(got, "Z four\n") || len(got) < 25 {
		t.Errorf("timestamps = %q", got)
	}
	// Follow: lines printed after the request arrive on the open stream.
	name2 := "follow"
	e.cli.Resource("", "v1", "pods").Namespace("default").Create(context.Background(), api.Object{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name2, "namespace": "default"},
		"spec":     map[string]any{"nodeName": "n1", "containers": []any{map[string]any{"name": "c", "image": "busybox", "command": []any{"sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i; sleep 0.2; done; sleep 300"}}}}})
	e.waitPod(name2, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	req, _ := http.NewRequest("GET", e.cli.Server()+"/api/v1/namespaces/default/pods/follow/log?follow=true", nil)
	req.Header.Set("Authorization", "Bearer "+e.token)
	resp, err := e.cli.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for i := 1; i <= 10; i++ {
		if !sc.Scan() || sc.Text() != fmt.Sprintf("line%d", i) {
			t.Fatalf("follow line %d = %q (%v)", i, sc.Text(), sc.Err())
		}
	}
}

// With the hub unreachable, a killed process is still restarted; the true
// status is written once the hub is back.
func TestHubOutage(t *testing.T) {
	hub := apiservertest.Start(t)
	var down atomic.Bool
	u, _ := url.Parse(hub.URL())
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = hub.Client.HTTPClient().Transport
	rp.FlushInterval = -1
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "hub down", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	agentCli, err := client.New(client.Config{Server: proxy.URL, Token: hub.Token, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cli: hub.Client, dir: t.TempDir(), ca: hub.PKI().CAPEM, token: hub.Token, agentCli: agentCli}
	e.rt = newProcessRuntime(t, e.dir, nil)
	e.run()
	name := e.createPod(`{"containers":[{"name":"c","image":"busybox","command":["sleep","300"]}]}`)
	e.waitPod(name, "Ready", ready)
	before := e.running(name)

	down.Store(true)
	proxy.CloseClientConnections()
	syscall.Kill(before.PID, syscall.SIGKILL)
	agenttest.Eventually(t, 10*time.Second, "restarted while the hub is down", func() bool {
		list, _ := e.rt.List(context.Background())
		for _, c := range list {
			if c.State == containers.StateRunning && c.Spec.ID != before.Spec.ID {
				return true
			}
		}
		return false
	})
	if p := e.pod(name); p.Status.ContainerStatuses[0].RestartCount != 0 {
		t.Fatalf("status written through a down hub?")
	}
	down.Store(false)
	e.waitPod(name, "restartCount 1 reported after the outage", func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].RestartCount == 1 && cs[0].State.Running != nil && ready(p)
	})
}

func (e *env) eventReason(reason string) bool { return e.eventMessage(reason) != "" }

// eventMessage is the message of an event with reason, "" if there is none.
func (e *env) eventMessage(reason string) string {
	l, err := e.cli.Resource("", "v1", "events").Namespace("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		return ""
	}
	for _, ev := range l.Items {
		if ev["reason"] == reason {
			return fmt.Sprint(ev["message"])
		}
	}
	return ""
}

// A containerPort already bound on the node and unenforced limits (this
// runtime manages no cgroups) are reported as events.
func TestPortInUseAndLimitsReported(t *testing.T) {
	e := start(t)
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	e.createPod(fmt.Sprintf(`{"containers":[{"name":"c","image":"busybox","command":["sleep","300"],"ports":[{"containerPort":%d}],
		"resources":{"limits":{"memory":"64Mi"}}}]}`, port))
	agenttest.Eventually(t, 10*time.Second, "PortInUse event", func() bool { return e.eventReason("PortInUse") })
	agenttest.Eventually(t, 10*time.Second, "LimitsNotEnforced event", func() bool { return e.eventReason("LimitsNotEnforced") })
	if msg, want := e.eventMessage("LimitsNotEnforced"), "container c: memory limit is not enforced on this node: the runtime manages no cgroups"; msg != want {
		t.Errorf("LimitsNotEnforced message = %q, want %q", msg, want)
	}
}

// On this machine's real cgroups: a container that allocates far beyond its
// limits.memory of 32Mi ends Terminated with reason OOMKilled and exit code
// 137, no LimitsNotEnforced warning is sent, and the Node says what it
// enforces. cgroupstest.New's clean-up fails the test if a group is left.
func TestMemoryLimitOOMKilled(t *testing.T) {
	cg := cgroupstest.New(t)
	e := startWith(t, cg)
	name := e.createPod(`{"restartPolicy":"Never","containers":[{"name":"hog","image":"python","resources":{"limits":{"memory":"32Mi","cpu":"500m"}},
		"command":["python3","-c","b = bytearray()\nfor _ in range(1024): b.extend(bytes(1 << 20))\nprint('not killed')"]}]}`)
	p := e.waitPod(name, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.Reason != "OOMKilled" || term.ExitCode != 137 {
		t.Fatalf("terminated = %+v, want reason OOMKilled, exit code 137", term)
	}
	// Events are written in order: once Started is there, an earlier LimitsNotEnforced would be too.
	agenttest.Eventually(t, 10*time.Second, "Started event", func() bool { return e.eventReason("Started") })
	if e.eventReason("LimitsNotEnforced") {
		t.Errorf("LimitsNotEnforced sent on a node that enforces both limits: %s", e.eventMessage("LimitsNotEnforced"))
	}
	n, err := e.cli.Resource("", "v1", "nodes").Get(context.Background(), "n1")
	if got, want := api.NestedString(n, "metadata", "annotations", "capstan.io/container-limits"), cg.Support().String(); err != nil || got != want {
		t.Errorf("node annotation = %q (%v), want %q", got, err, want)
	}
}

// The fake runtime runs pods without processes: Running and Ready, and a
// delete completes.
func TestFakeRuntime(t *testing.T) {
	hub := apiservertest.Start(t)
	e := &env{t: t, cli: hub.Client, dir: t.TempDir(), ca: hub.PKI().CAPEM, token: hub.Token, rt: containers.NewFake()}
	e.run()
	name := e.createPod(`{"containers":[{"name":"c","image":"busybox","command":["sleep","inf"]}]}`)
	e.waitPod(name, "Running and Ready", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && ready(p) })
	if _, err := e.cli.Resource("", "v1", "pods").Namespace("default").Delete(context.Background(), name, nil); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 10*time.Second, "pod deleted", func() bool { return e.pod(name) == nil })
}
