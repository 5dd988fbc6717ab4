package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/e2e/framework"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// The distributed stack as processes on loopback: a 3-member etcd cluster
// and hub replicas on it, with clients that fail over between the replicas.
// These are the Docker-free variants of the fault scenarios of issue 7.

const stackRequestTimeout = "3s" // --etcd-request-timeout of every hub replica

type stack struct {
	t       *testing.T
	etcd    *storagetest.Cluster
	servers []*framework.Server
}

// startStack starts a 3-member etcd cluster and n hub replicas on it that
// share one CA, admin token and ServiceAccount key.
func startStack(t *testing.T, n int) *stack {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped under -short: the stack runs etcd members and capstan servers")
	}
	st := &stack{t: t, etcd: storagetest.RunCluster(t, 3)}
	for range n {
		st.addServer()
	}
	return st
}

// addServer starts one more hub replica on the stack's etcd.
func (st *stack) addServer() *framework.Server {
	st.t.Helper()
	args := []string{"--etcd-servers", strings.Join(st.etcd.Endpoints(), ","), "--etcd-request-timeout", stackRequestTimeout}
	seed := ""
	if len(st.servers) > 0 {
		seed = st.servers[0].DataDir
	}
	s := framework.StartServerSeeded(st.t, capstanBin, seed, args...)
	st.servers = append(st.servers, s)
	return s
}

// client talks to servers[primary] and fails over to the other replicas.
func (st *stack) client(primary int) *client.Client {
	st.t.Helper()
	cfg, err := client.LoadKubeconfig(st.servers[primary].Kubeconfig)
	if err != nil {
		st.t.Fatal(err)
	}
	for i, s := range st.servers {
		if i != primary {
			cfg.FallbackServers = append(cfg.FallbackServers, s.URL)
		}
	}
	cfg.Timeout = 10 * time.Second
	c, err := client.New(cfg)
	if err != nil {
		st.t.Fatal(err)
	}
	return c
}

// names lists rc and returns the names of its objects.
func names(t *testing.T, rc *client.ResourceClient) map[string]bool {
	t.Helper()
	l, err := rc.List(t.Context(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, o := range l.Items {
		have[api.NestedString(o, "metadata", "name")] = true
	}
	return have
}

func cmObject(name string) api.Object {
	return api.Object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name}, "data": map[string]any{"k": name}}
}

// TestStackEtcdMinority: with one of three etcd members stopped, reads and
// writes go on and the member catches up when restarted; with two stopped,
// writes and reads fail fast with a 5xx Status; with quorum back, everything
// resumes and no acknowledged write is lost.
func TestStackEtcdMinority(t *testing.T) {
	st := startStack(t, 1)
	cms := st.client(0).Resource("", "v1", "configmaps").Namespace("default")
	ctx := t.Context()
	var acked []string
	write := func(name string) error {
		_, err := cms.Create(ctx, cmObject(name))
		if err == nil {
			acked = append(acked, name)
		}
		return err
	}
	for i := range 10 {
		if err := write(fmt.Sprintf("before-%d", i)); err != nil {
			t.Fatal(err)
		}
	}

	// One member down: a write may meet a leader election, but not fail.
	st.etcd.Stop(0)
	start := time.Now()
	for i := range 20 {
		if err := write(fmt.Sprintf("minority-%d", i)); err != nil {
			t.Fatalf("write with one member of three stopped: %v", err)
		}
		if _, err := cms.Get(ctx, "before-0"); err != nil {
			t.Fatalf("read with one member of three stopped: %v", err)
		}
	}
	t.Logf("one member stopped: 20 writes and 20 reads in %v, none failed", time.Since(start).Round(time.Millisecond))

	// Restarted, member 0 catches up: a serializable read answered by it
	// alone sees the last write.
	st.etcd.Restart(0)
	member0, err := clientv3.New(clientv3.Config{Endpoints: st.etcd.Endpoints()[:1], DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer member0.Close()
	start = time.Now()
	agenttest.Eventually(t, 30*time.Second, "the restarted member to hold the last write", func() bool {
		r, err := member0.Get(ctx, "/registry/core/configmaps/default/minority-19", clientv3.WithSerializable())
		return err == nil && len(r.Kvs) == 1
	})
	t.Logf("restarted member caught up in %v", time.Since(start).Round(time.Millisecond))

	// Two members down: no quorum. Requests fail with a 5xx within the
	// request timeout rather than hang.
	st.etcd.Stop(1)
	st.etcd.Stop(2)
	timeout, _ := time.ParseDuration(stackRequestTimeout)
	refusedCode := 0
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"create", func() error {
			_, err := cms.Create(ctx, cmObject("no-quorum"))
			refusedCode = apierrors.Code(err)
			return err
		}},
		{"get", func() error { _, err := cms.Get(ctx, "before-0"); return err }},
		{"list", func() error { _, err := cms.List(ctx, client.ListOptions{}); return err }},
	} {
		start := time.Now()
		err := tc.call()
		d := time.Since(start)
		if c := apierrors.Code(err); c < 500 {
			t.Fatalf("%s without quorum: got %v (code %d), want a 5xx Status", tc.name, err, c)
		}
		if d > timeout+3*time.Second {
			t.Fatalf("%s without quorum took %v; want at most the request timeout %v and a little", tc.name, d, timeout)
		}
		t.Logf("%s without quorum: %d after %v: %v", tc.name, apierrors.Code(err), d.Round(time.Millisecond), err)
	}

	// Quorum back: writes resume and nothing acknowledged is lost.
	st.etcd.Restart(1)
	st.etcd.Restart(2)
	start = time.Now()
	agenttest.Eventually(t, 60*time.Second, "writes to resume with quorum back", func() bool {
		return write("after") == nil
	})
	t.Logf("writes resumed %v after quorum returned", time.Since(start).Round(time.Millisecond))
	have := names(t, cms)
	lost := 0
	for _, name := range acked {
		if !have[name] {
			lost++
			t.Errorf("acknowledged write %s lost", name)
		}
	}
	if have["no-quorum"] && refusedCode == http.StatusServiceUnavailable {
		t.Errorf("the create refused without quorum (503) exists") // a 504 may or may not have been applied
	}
	t.Logf("writes lost: %d of %d acknowledged", lost, len(acked))
}

// TestStackServerFailover: one of two hub replicas stopped during a stream
// of writes and a watch. The writer and the watcher fail over to the other
// replica; the watcher resumes from its last resourceVersion and sees every
// acknowledged write exactly once, in resourceVersion order, and no
// acknowledged write is lost.
func TestStackServerFailover(t *testing.T) {
	st := startStack(t, 2)
	ctx := t.Context()
	const total, stopAt = 300, 100
	writer := st.client(0).Resource("", "v1", "configmaps").Namespace("default")
	wcli := st.client(0)
	watcher := wcli.Resource("", "v1", "configmaps").Namespace("default")
	l, err := watcher.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The watcher: rewatches from the last resourceVersion it saw whenever
	// its stream ends, as a reflector does.
	type seen struct {
		rv     int64
		server string
	}
	var (
		mu       sync.Mutex
		events   = map[string][]seen{} // name → ADDED events
		rewatch  int
		firstOnB time.Time
	)
	lastRV := l.Metadata.ResourceVersion
	wctx, wcancel := context.WithCancel(ctx)
	wdone := make(chan error, 1)
	go func() {
		prev, _ := strconv.ParseInt(lastRV, 10, 64)
		for wctx.Err() == nil {
			w, err := watcher.Watch(wctx, client.ListOptions{ResourceVersion: lastRV, AllowWatchBookmarks: true})
			if err != nil {
				if apierrors.Code(err) == http.StatusGone {
					wdone <- fmt.Errorf("watch from %s expired: %w", lastRV, err)
					return
				}
				time.Sleep(50 * time.Millisecond)
				continue
			}
			server := wcli.Server()
			mu.Lock()
			rewatch++
			mu.Unlock()
			for ev := range w.Events() {
				rvs := api.NestedString(ev.Object, "metadata", "resourceVersion")
				rv, _ := strconv.ParseInt(rvs, 10, 64)
				if ev.Type == "ERROR" {
					continue
				}
				if ev.Type != "BOOKMARK" {
					if rv <= prev {
						wdone <- fmt.Errorf("event %s %s at rv %d after rv %d: out of order or repeated", ev.Type, api.NestedString(ev.Object, "metadata", "name"), rv, prev)
						return
					}
					prev = rv
				}
				lastRV = rvs
				if ev.Type == "ADDED" {
					mu.Lock()
					name := api.NestedString(ev.Object, "metadata", "name")
					events[name] = append(events[name], seen{rv, server})
					if server == st.servers[1].URL && firstOnB.IsZero() {
						firstOnB = time.Now()
					}
					mu.Unlock()
				}
			}
			w.Stop()
		}
		wdone <- nil
	}()

	// The writer: creates in sequence; a create whose answer was lost is
	// resent, and a 409 then means the first attempt was stored.
	acked := map[string]int64{}
	var stopped time.Time
	var firstAfter time.Duration
	var failed atomic.Int32
	for i := range total {
		if i == stopAt {
			begun := time.Now()
			if err := st.servers[0].Stop(); err != nil {
				t.Logf("stopping server 0: %v", err)
			}
			stopped = time.Now()
			t.Logf("server 0 took %v to shut down after SIGTERM", stopped.Sub(begun).Round(time.Millisecond))
		}
		name := fmt.Sprintf("cm-%03d", i)
		deadline := time.Now().Add(30 * time.Second)
		for {
			o, err := writer.Create(ctx, cmObject(name))
			if err == nil {
				rv, _ := strconv.ParseInt(api.NestedString(o, "metadata", "resourceVersion"), 10, 64)
				acked[name] = rv
				break
			}
			if apierrors.Code(err) == http.StatusConflict {
				o, gerr := writer.Get(ctx, name)
				if gerr != nil {
					t.Fatalf("reading %s after a 409: %v", name, gerr)
				}
				rv, _ := strconv.ParseInt(api.NestedString(o, "metadata", "resourceVersion"), 10, 64)
				acked[name] = rv
				break
			}
			failed.Add(1)
			if time.Now().After(deadline) {
				t.Fatalf("create %s kept failing: %v", name, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if i == stopAt {
			firstAfter = time.Since(stopped)
		}
	}

	// Wait for the watcher to have seen every write, then check.
	agenttest.Eventually(t, 30*time.Second, "the watcher to see every acknowledged write", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for name := range acked {
			if len(events[name]) == 0 {
				return false
			}
		}
		return true
	})
	wcancel()
	if err := <-wdone; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	missed, dup := 0, 0
	for name, rv := range acked {
		ev := events[name]
		switch {
		case len(ev) == 0:
			missed++
		case len(ev) > 1:
			dup++
			t.Errorf("%s seen %d times", name, len(ev))
		case ev[0].rv != rv:
			t.Errorf("%s seen at rv %d, created at rv %d", name, ev[0].rv, rv)
		}
	}
	have := names(t, writer)
	lost := 0
	for name := range acked {
		if !have[name] {
			lost++
		}
	}
	if missed > 0 || lost > 0 || dup > 0 {
		t.Errorf("events missed %d, duplicated %d, writes lost %d", missed, dup, lost)
	}
	if firstOnB.IsZero() {
		t.Errorf("the watcher never received an event from the other replica")
	}
	t.Logf("server stopped after %d of %d writes: first write acknowledged by the other replica %v after server 0 exited (%d failed attempts); first watch event from it %v after the exit; watches opened %d; events missed %d, duplicated %d; writes lost %d",
		stopAt, total, firstAfter.Round(time.Millisecond), failed.Load(), firstOnB.Sub(stopped).Round(time.Millisecond), rewatch, missed, dup, lost)
}

// TestStackCrashConsistency: every hub replica is killed with SIGKILL during
// 1,000 concurrent creates. After a restart, every create answered 201 is
// present, and none that was refused exists. A tenth of the creates are
// invalid, so refusals are certain to occur.
func TestStackCrashConsistency(t *testing.T) {
	st := startStack(t, 2)
	ctx := t.Context()
	const total, workers, killAfter = 1000, 16, 300
	clients := []*client.ResourceClient{
		st.client(0).Resource("", "v1", "configmaps").Namespace("default"),
		st.client(1).Resource("", "v1", "configmaps").Namespace("default"),
	}
	var (
		mu                        sync.Mutex
		created, refused, unknown []string
		next                      atomic.Int32
		killed                    = make(chan struct{})
		killOnce                  sync.Once
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			cms := clients[w%2]
			for {
				i := int(next.Add(1)) - 1
				if i >= total {
					return
				}
				name := fmt.Sprintf("crash-%04d", i)
				obj := cmObject(name)
				if i%10 == 9 {
					obj["data"] = map[string]any{"k": 7} // not a string: 422
				}
				_, err := cms.Create(ctx, obj)
				mu.Lock()
				var se *apierrors.StatusError
				switch {
				case err == nil:
					created = append(created, name)
				case errors.As(err, &se) && apierrors.Code(err) < 500:
					refused = append(refused, name)
				default:
					unknown = append(unknown, name) // no answer, or a 5xx that may have committed
				}
				n := len(created)
				mu.Unlock()
				if n == killAfter {
					killOnce.Do(func() {
						for _, s := range st.servers {
							s.Kill()
						}
						close(killed)
					})
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the creates ended before the servers were killed")
	}

	// Restart: a fresh replica on the same etcd, with the same credentials.
	seedDir := st.servers[0].DataDir
	args := []string{"--etcd-servers", strings.Join(st.etcd.Endpoints(), ","), "--etcd-request-timeout", stackRequestTimeout}
	st.servers = []*framework.Server{framework.StartServerSeeded(t, capstanBin, seedDir, args...)}
	have := names(t, st.client(0).Resource("", "v1", "configmaps").Namespace("default"))
	lost, ghosts := 0, 0
	for _, name := range created {
		if !have[name] {
			lost++
			t.Errorf("%s was created (201) but is missing after the restart", name)
		}
	}
	for _, name := range refused {
		if have[name] {
			ghosts++
			t.Errorf("%s was refused but exists after the restart", name)
		}
	}
	kept := 0
	for _, name := range unknown {
		if have[name] {
			kept++
		}
	}
	t.Logf("%d creates: %d answered 201, %d refused, %d unanswered when the servers died (%d of those stored); writes lost %d, refused writes present %d",
		total, len(created), len(refused), len(unknown), kept, lost, ghosts)
}

// agent starts `capstan <kind>` against servers[primary], failing over to
// the others; leader-elected kinds get 2s leases.
func (st *stack) agent(name string, primary int, args ...string) *exec.Cmd {
	st.t.Helper()
	var fallbacks []string
	for i, s := range st.servers {
		if i != primary {
			fallbacks = append(fallbacks, s.URL)
		}
	}
	args = append(args, "--kubeconfig", st.servers[primary].Kubeconfig, "--fallback-servers", strings.Join(fallbacks, ","))
	return startProcess(st.t, name, args...)
}

// leaderElected starts replica id of the scheduler or controller-manager with short leases.
func (st *stack) leaderElected(kind, id string, primary int) *exec.Cmd {
	st.t.Helper()
	args := []string{kind, "--leader-elect-lease-duration", stackLease.String(), "--leader-elect-renew-deadline", "1500ms", "--leader-elect-retry-period", "200ms"}
	args = append(args, "--leader-elect-identity", id)
	if kind == "controller-manager" {
		args = append(args, "--node-monitor-grace-period", "4s", "--pod-eviction-timeout", "2s")
	}
	return st.agent(kind+"-"+id, primary, args...)
}

// node starts a node agent named name with a 1s Lease renewal.
func (st *stack) node(name string, primary int, runtime string) *exec.Cmd {
	st.t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return st.agent("node-"+name, primary, "node", "--name", name, "--runtime", runtime,
		"--data-dir", filepath.Join(st.t.TempDir(), name), "--address", "127.0.0.1", "--listen-address", fmt.Sprintf("127.0.0.1:%d", port),
		"--lease-renew-interval", "1s", "--lease-duration", "4s", "--node-status-update-frequency", "2s")
}

const stackLease = 2 * time.Second // leader election lease of the stack's agents

// leaseHolder names the holder of kube-system/name, or "".
func leaseHolder(ctx context.Context, cli *client.Client, name string) string {
	o, err := cli.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-system").Get(ctx, name)
	if err != nil {
		return ""
	}
	return api.NestedString(o, "spec", "holderIdentity")
}

func deployment(name string, replicas int) api.Object {
	labels := map[string]any{"app": name}
	return api.Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"terminationGracePeriodSeconds": 1, "containers": []any{map[string]any{
					"name": "main", "image": "busybox", "command": []any{"sleep", "3600"}}}}}}}
}

// readyPods lists app's active pods that are bound and ready, by node.
func readyPods(t *testing.T, cli *client.Client, app string) (ready int, byNode map[string]int) {
	t.Helper()
	l, err := cli.Resource("", "v1", "pods").Namespace("default").List(t.Context(), client.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return -1, nil
	}
	byNode = map[string]int{}
	for _, p := range l.Items {
		if !meta.PodActive(p) {
			continue
		}
		if ok, _ := meta.PodReady(p); ok && api.NestedString(p, "spec", "nodeName") != "" {
			ready++
			byNode[api.NestedString(p, "spec", "nodeName")]++
		}
	}
	return ready, byNode
}

// TestStackLeaderFailover: two replicas each of the scheduler and the
// controller-manager on two hub replicas; the leaders of both are killed
// (SIGKILL) and a scale-up is issued at once. The standbys take over within
// the lease duration and the scale-up completes.
func TestStackLeaderFailover(t *testing.T) {
	st := startStack(t, 2)
	ctx := t.Context()
	cli := st.client(0)
	procs := map[string]*exec.Cmd{}
	for i, id := range []string{"a", "b"} {
		procs["scheduler-"+id] = st.leaderElected("scheduler", id, i)
		procs["controller-manager-"+id] = st.leaderElected("controller-manager", id, i)
		st.node("node-"+id, i, "fake")
	}
	deps := cli.Resource("apps", "v1", "deployments").Namespace("default")
	if _, err := deps.Create(ctx, deployment("web", 2)); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 60*time.Second, "2 ready pods", func() bool { n, _ := readyPods(t, cli, "web"); return n == 2 })

	cmLeader := leaseHolder(ctx, cli, "capstan-controller-manager")
	if cmLeader != "a" && cmLeader != "b" {
		t.Fatalf("controller-manager lease held by %q", cmLeader)
	}
	schedLeader := leaseHolder(ctx, cli, "capstan-scheduler")
	if schedLeader != "a" && schedLeader != "b" {
		t.Fatalf("scheduler lease held by %q", schedLeader)
	}
	killed := time.Now()
	procs["controller-manager-"+cmLeader].Process.Kill()
	procs["scheduler-"+schedLeader].Process.Kill()
	if _, err := deps.Patch(ctx, "web", "scale", "application/merge-patch+json", []byte(`{"spec":{"replicas":4}}`)); err != nil {
		t.Fatal(err)
	}
	var cmTakeover, schedTakeover time.Duration
	agenttest.Eventually(t, 30*time.Second, "the standbys to take the leases", func() bool {
		if h := leaseHolder(ctx, cli, "capstan-controller-manager"); cmTakeover == 0 && h != "" && h != cmLeader {
			cmTakeover = time.Since(killed)
		}
		if h := leaseHolder(ctx, cli, "capstan-scheduler"); schedTakeover == 0 && h != "" && h != schedLeader {
			schedTakeover = time.Since(killed)
		}
		return cmTakeover > 0 && schedTakeover > 0
	})
	agenttest.Eventually(t, 60*time.Second, "the scale-up to 4 ready pods", func() bool { n, _ := readyPods(t, cli, "web"); return n == 4 })
	done := time.Since(killed)
	// The lease runs out at most stackLease after the last renewal; a retry
	// period and the poll add a little.
	if d := max(cmTakeover, schedTakeover); d > stackLease+time.Second {
		t.Errorf("a standby took %v to take over; the lease is %v", d, stackLease)
	}
	t.Logf("leaders killed (SIGKILL): standby controller-manager took the lease after %v, standby scheduler after %v (lease %v); scale-up 2→4 complete %v after the kill",
		cmTakeover.Round(time.Millisecond), schedTakeover.Round(time.Millisecond), stackLease, done.Round(time.Millisecond))
}

// processes lists the pids of processes whose command line (NUL-separated) matches.
func processes(match func(cmdline string) bool) map[int]bool {
	out := map[int]bool{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && match(string(b)) {
			out[pid] = true
		}
	}
	return out
}

// sleepers lists the pids of running processes whose command line is
// exactly `sleep arg`: the pods' containers of one test.
func sleepers(arg string) map[int]bool {
	return processes(func(c string) bool { return c == "sleep\x00"+arg+"\x00" })
}

// reapPods kills, at the end of t, the pods' processes a node agent leaves
// running when it stops (pods outlive their agent by design): the container
// shims under root and the `sleep arg` containers. Register it before the
// node agents start, so it runs after they are stopped.
func reapPods(t *testing.T, root, arg string) {
	t.Cleanup(func() {
		shims := processes(func(c string) bool { return strings.Contains(c, "container-shim") && strings.Contains(c, root) })
		for pid := range shims {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		for pid := range sleepers(arg) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// nodeReadyStatus reports the Node's Ready condition status ("True", "False", "Unknown" or "").
func nodeReadyStatus(ctx context.Context, cli *client.Client, name string) string {
	n, err := cli.Resource("", "v1", "nodes").Get(ctx, name)
	if err != nil {
		return ""
	}
	conds, _ := api.Nested(n, "status", "conditions").([]any)
	for _, c := range conds {
		if c, ok := c.(map[string]any); ok && c["type"] == "Ready" {
			s, _ := c["status"].(string)
			return s
		}
	}
	return ""
}

// TestStackOutages runs pods as real processes on two node agents, then
// (1) stops the whole control plane (both hub replicas) for 10s: the pods'
// processes keep running and, when it returns, status converges without
// restarting them; (2) cuts one node agent off (SIGSTOP, the process-level
// stand-in for a network partition): the node goes NotReady and its pods are
// recreated on the other node; reconnected (SIGCONT), the node is Ready again
// and its stale pods' processes are stopped.
func TestStackOutages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	st := startStack(t, 2)
	ctx := t.Context()
	cli := st.client(0)
	st.leaderElected("scheduler", "a", 0)
	st.leaderElected("controller-manager", "a", 1)
	arg := fmt.Sprintf("%d.%d", 3000+os.Getpid()%500, time.Now().UnixNano()%1000) // unique to this run
	reapPods(t, filepath.Dir(t.TempDir()), arg)
	nodes := map[string]*exec.Cmd{"node-a": st.node("node-a", 0, "process"), "node-b": st.node("node-b", 1, "process")}
	dep := deployment("sleepers", 2)
	c := api.Nested(dep, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	c["command"] = []any{"sleep", arg}
	if _, err := cli.Resource("apps", "v1", "deployments").Namespace("default").Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 60*time.Second, "2 ready pods and 2 processes", func() bool {
		n, _ := readyPods(t, cli, "sleepers")
		return n == 2 && len(sleepers(arg)) == 2
	})
	before := sleepers(arg)

	// (1) The whole control plane away for 10s.
	const outage = 10 * time.Second
	for _, s := range st.servers {
		s.Stop()
	}
	time.Sleep(outage)
	if now := sleepers(arg); !maps.Equal(now, before) {
		t.Fatalf("pods' processes changed during the outage: %v, before %v", now, before)
	}
	back := time.Now()
	for i, s := range st.servers {
		st.servers[i] = s.Restart(t)
	}
	agenttest.Eventually(t, 60*time.Second, "both nodes Ready and 2 ready pods", func() bool {
		n, _ := readyPods(t, cli, "sleepers")
		return n == 2 && nodeReadyStatus(ctx, cli, "node-a") == "True" && nodeReadyStatus(ctx, cli, "node-b") == "True"
	})
	converged := time.Since(back)
	if now := sleepers(arg); !maps.Equal(now, before) {
		t.Fatalf("pods' processes were restarted after the outage: %v, before %v", now, before)
	}
	t.Logf("control plane stopped for %v: pods' processes untouched (%d alive, same pids); status converged %v after the servers returned",
		outage, len(before), converged.Round(time.Millisecond))

	// A leader-elected agent whose lease ran out during the outage exits, as
	// kube's do, for its supervisor to restart (compose: restart policy).
	// Start fresh replicas for what follows.
	st.leaderElected("scheduler", "b", 1)
	st.leaderElected("controller-manager", "b", 0)

	// (2) node-a cut off.
	_, byNode := readyPods(t, cli, "sleepers")
	cut := time.Now()
	nodes["node-a"].Process.Signal(syscall.SIGSTOP)
	t.Cleanup(func() { nodes["node-a"].Process.Signal(syscall.SIGCONT) }) // before its SIGTERM
	agenttest.Eventually(t, 30*time.Second, "node-a NotReady", func() bool { return nodeReadyStatus(ctx, cli, "node-a") != "True" })
	notReady := time.Since(cut)
	agenttest.Eventually(t, 90*time.Second, "2 ready pods on node-b", func() bool {
		n, byNode := readyPods(t, cli, "sleepers")
		return n >= 2 && byNode["node-b"] == 2
	})
	moved := time.Since(cut)
	healed := time.Now()
	nodes["node-a"].Process.Signal(syscall.SIGCONT)
	agenttest.Eventually(t, 30*time.Second, "node-a Ready again", func() bool { return nodeReadyStatus(ctx, cli, "node-a") == "True" })
	agenttest.Eventually(t, 60*time.Second, "node-a's stale pods stopped: 2 processes left", func() bool { return len(sleepers(arg)) == 2 })
	stopped := time.Since(healed)
	if n, byNode := readyPods(t, cli, "sleepers"); n != 2 || byNode["node-b"] != 2 {
		t.Errorf("after the node returned: %d ready pods, by node %v", n, byNode)
	}
	t.Logf("node-a (had %d of the pods) cut off: NotReady after %v, pods running on node-b after %v; reconnected: Ready and stale processes stopped after %v",
		byNode["node-a"], notReady.Round(time.Millisecond), moved.Round(time.Millisecond), stopped.Round(time.Millisecond))
}
