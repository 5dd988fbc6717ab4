package e2e

import (
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/e2e/faulttest"
	"github.com/capstan-io/capstan/e2e/framework"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// The distributed stack as processes on loopback: a 3-member etcd cluster
// and hub replicas on it, with clients that fail over between the replicas.
// These are the Docker-free variants of the fault scenarios of issue 7.

const stackRequestTimeout = "3s" // --etcd-request-timeout of every hub replica

const stackLease = 2 * time.Second // leader election lease of the stack's agents

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

// TestStackEtcdMinority: with one of three etcd members stopped, reads and
// writes go on and the member catches up when restarted; with two stopped,
// writes and reads fail fast with a 5xx Status; with quorum back, everything
// resumes and no acknowledged write is lost.
func TestStackEtcdMinority(t *testing.T) {
	st := startStack(t, 1)
	cms := st.client(0).Resource("", "v1", "configmaps").Namespace("default")
	ctx := t.Context()
	writes := faulttest.NewWrites(cms)
	for i := range 10 {
		if err := writes.Write(t, fmt.Sprintf("before-%d", i)); err != nil {
			t.Fatal(err)
		}
	}

	// One member down: a write may meet a leader election, but not fail.
	st.etcd.Stop(0)
	faulttest.MinorityDown(t, writes, "before-0")

	// Restarted, member 0 catches up: a serializable read answered by it
	// alone sees the last write.
	st.etcd.Restart(0)
	member0, err := clientv3.New(clientv3.Config{Endpoints: st.etcd.Endpoints()[:1], DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer member0.Close()
	start := time.Now()
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
	refused := faulttest.NoQuorum(t, cms, "before-0", timeout)

	// Quorum back: writes resume and nothing acknowledged is lost.
	st.etcd.Restart(1)
	st.etcd.Restart(2)
	start = time.Now()
	agenttest.Eventually(t, 60*time.Second, "writes to resume with quorum back", func() bool {
		return writes.Write(t, "after") == nil
	})
	t.Logf("writes resumed %v after quorum returned", time.Since(start).Round(time.Millisecond))
	faulttest.NothingLost(t, cms, writes.Acked, refused)
}

// TestStackServerFailover: one of two hub replicas stopped during a stream
// of writes and a watch. The writer and the watcher fail over to the other
// replica; the watcher resumes from its last resourceVersion and sees every
// acknowledged write exactly once, in resourceVersion order, and no
// acknowledged write is lost.
func TestStackServerFailover(t *testing.T) {
	st := startStack(t, 2)
	faulttest.ServerFailover(t, faulttest.Failover{
		Writer: st.client(0), Watcher: st.client(0), Other: st.servers[1].URL,
		Stop: func() {
			if err := st.servers[0].Stop(); err != nil {
				t.Logf("stopping server 0: %v", err)
			}
		},
		Total: 300, StopAt: 100,
	})
}

// TestStackCrashConsistency: every hub replica is killed with SIGKILL during
// 1,000 concurrent creates. After a restart, every create answered 201 is
// present, and none that was refused exists. A tenth of the creates are
// invalid, so refusals are certain to occur.
func TestStackCrashConsistency(t *testing.T) {
	st := startStack(t, 2)
	killAll := func() {
		for _, s := range st.servers {
			s.Kill()
		}
	}
	// Restart: a fresh replica on the same etcd, with the same credentials.
	restart := func() *client.Client {
		seedDir := st.servers[0].DataDir
		args := []string{"--etcd-servers", strings.Join(st.etcd.Endpoints(), ","), "--etcd-request-timeout", stackRequestTimeout}
		st.servers = []*framework.Server{framework.StartServerSeeded(t, capstanBin, seedDir, args...)}
		return st.client(0)
	}
	faulttest.CrashConsistency(t, []*client.Client{st.client(0), st.client(1)}, killAll, restart)
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
	if _, err := deps.Create(ctx, faulttest.Deployment("web", 2, "sleep", "3600")); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 60*time.Second, "2 ready pods", func() bool { n, _ := faulttest.ReadyPods(ctx, cli, "web"); return n == 2 })

	cmLeader := faulttest.LeaseHolder(ctx, cli, "capstan-controller-manager")
	if cmLeader != "a" && cmLeader != "b" {
		t.Fatalf("controller-manager lease held by %q", cmLeader)
	}
	schedLeader := faulttest.LeaseHolder(ctx, cli, "capstan-scheduler")
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
		if h := faulttest.LeaseHolder(ctx, cli, "capstan-controller-manager"); cmTakeover == 0 && h != "" && h != cmLeader {
			cmTakeover = time.Since(killed)
		}
		if h := faulttest.LeaseHolder(ctx, cli, "capstan-scheduler"); schedTakeover == 0 && h != "" && h != schedLeader {
			schedTakeover = time.Since(killed)
		}
		return cmTakeover > 0 && schedTakeover > 0
	})
	agenttest.Eventually(t, 60*time.Second, "the scale-up to 4 ready pods", func() bool { n, _ := faulttest.ReadyPods(ctx, cli, "web"); return n == 4 })
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
	dep := faulttest.Deployment("sleepers", 2, "sleep", arg)
	if _, err := cli.Resource("apps", "v1", "deployments").Namespace("default").Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 60*time.Second, "2 ready pods and 2 processes", func() bool {
		n, _ := faulttest.ReadyPods(ctx, cli, "sleepers")
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
		n, _ := faulttest.ReadyPods(ctx, cli, "sleepers")
		return n == 2 && faulttest.NodeReady(ctx, cli, "node-a") == "True" && faulttest.NodeReady(ctx, cli, "node-b") == "True"
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
	_, byNode := faulttest.ReadyPods(ctx, cli, "sleepers")
	cut := time.Now()
	nodes["node-a"].Process.Signal(syscall.SIGSTOP)
	t.Cleanup(func() { nodes["node-a"].Process.Signal(syscall.SIGCONT) }) // before its SIGTERM
	agenttest.Eventually(t, 30*time.Second, "node-a NotReady", func() bool { return faulttest.NodeReady(ctx, cli, "node-a") != "True" })
	notReady := time.Since(cut)
	agenttest.Eventually(t, 90*time.Second, "2 ready pods on node-b", func() bool {
		n, byNode := faulttest.ReadyPods(ctx, cli, "sleepers")
		return n >= 2 && byNode["node-b"] == 2
	})
	moved := time.Since(cut)
	healed := time.Now()
	nodes["node-a"].Process.Signal(syscall.SIGCONT)
	agenttest.Eventually(t, 30*time.Second, "node-a Ready again", func() bool { return faulttest.NodeReady(ctx, cli, "node-a") == "True" })
	agenttest.Eventually(t, 60*time.Second, "node-a's stale pods stopped: 2 processes left", func() bool { return len(sleepers(arg)) == 2 })
	stopped := time.Since(healed)
	if n, byNode := faulttest.ReadyPods(ctx, cli, "sleepers"); n != 2 || byNode["node-b"] != 2 {
		t.Errorf("after the node returned: %d ready pods, by node %v", n, byNode)
	}
	t.Logf("node-a (had %d of the pods) cut off: NotReady after %v, pods running on node-b after %v; reconnected: Ready and stale processes stopped after %v",
		byNode["node-a"], notReady.Round(time.Millisecond), moved.Round(time.Millisecond), stopped.Round(time.Millisecond))
}
