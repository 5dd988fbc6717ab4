package dockerstack

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/e2e/faulttest"
)

var (
	etcdMembers  = []string{"etcd1", "etcd2", "etcd3"}
	servers      = []string{"server1", "server2"}
	controlPlane = []string{"etcd1", "etcd2", "etcd3", "server1", "server2", "scheduler1", "scheduler2", "controller-manager1", "controller-manager2"}
)

// TestDockerStack brings up the docker-compose stack once and runs the
// fault scenarios on it in order; each leaves the stack whole again.
func TestDockerStack(t *testing.T) {
	s := up(t)
	cli := s.client(0)
	begun := time.Now()
	agenttest.Eventually(t, 60*time.Second, "2 Ready nodes", func() bool {
		return faulttest.NodeReady(t.Context(), cli, "node1") == "True" && faulttest.NodeReady(t.Context(), cli, "node2") == "True"
	})
	t.Logf("2 nodes Ready %v after compose up returned", time.Since(begun).Round(time.Millisecond))

	for _, tc := range []struct {
		name string
		run  func(*testing.T, *stack)
	}{
		{"EtcdMinority", etcdMinority},
		{"ServerFailover", serverFailover},
		{"LeaderFailover", leaderFailover},
		{"NodeCutOff", nodeCutOff},
		{"ControlPlaneOutage", controlPlaneOutage},
		{"CrashConsistency", crashConsistency},
	} {
		if !t.Run(tc.name, func(t *testing.T) { tc.run(t, s.with(t)) }) {
			return // the stack may be left broken: stop here
		}
	}
}

// with is s reporting to t.
func (s *stack) with(t *testing.T) *stack {
	c := *s
	c.t = t
	return &c
}

// etcdMinority: one etcd member stopped, reads and writes go on; restarted,
// it catches up (it then forms the quorum that acknowledges further writes);
// two stopped, requests fail fast with a 5xx; quorum back, nothing
// acknowledged is lost.
func etcdMinority(t *testing.T, s *stack) {
	ctx := t.Context()
	cms := s.client(0).Resource("", "v1", "configmaps").Namespace("default")
	writes := faulttest.NewWrites(cms)
	s.stop("etcd1")
	faulttest.MinorityDown(t, writes, "minority-0")

	s.start("etcd1")
	s.waitHealthy("etcd1")
	// With etcd2 stopped, etcd1 and etcd3 are the quorum: a write succeeds
	// only once etcd1 holds the log, including what it missed.
	s.stop("etcd2")
	begun := time.Now()
	agenttest.Eventually(t, 60*time.Second, "a write with etcd1 in the quorum", func() bool { return writes.Write(t, "caught-up") == nil })
	for i := range 20 {
		if _, err := cms.Get(ctx, fmt.Sprintf("minority-%d", i)); err != nil {
			t.Fatalf("minority-%d after etcd1 rejoined: %v", i, err)
		}
	}
	t.Logf("etcd1 restarted and caught up: a write with it in the quorum acknowledged %v after etcd2 stopped", time.Since(begun).Round(time.Millisecond))

	s.stop("etcd3") // etcd2 and etcd3 down: no quorum
	refused := faulttest.NoQuorum(t, cms, "minority-0", requestTimeout)

	s.start("etcd2", "etcd3")
	begun = time.Now()
	agenttest.Eventually(t, 60*time.Second, "writes to resume with quorum back", func() bool { return writes.Write(t, "after") == nil })
	t.Logf("writes resumed %v after quorum returned", time.Since(begun).Round(time.Millisecond))
	s.waitHealthy(etcdMembers...)
	faulttest.NothingLost(t, cms, writes.Acked, refused)
}

// serverFailover: server1 stopped during writes and a watch through it.
func serverFailover(t *testing.T, s *stack) {
	faulttest.ServerFailover(t, faulttest.Failover{
		Writer: s.client(0), Watcher: s.client(0), Other: s.urls[1],
		Stop:  func() { s.stop("server1") },
		Total: 300, StopAt: 100,
	})
	s.start("server1")
	s.waitHealthy("server1")
}

// leaderFailover: the leading scheduler and controller-manager killed
// (SIGKILL) while a scale-up is issued; the standbys take over within the
// lease duration and the scale-up completes.
func leaderFailover(t *testing.T, s *stack) {
	ctx := t.Context()
	cli := s.client(1)
	deps := cli.Resource("apps", "v1", "deployments").Namespace("default")
	if _, err := deps.Create(ctx, faulttest.Deployment("leaders", 2, "sleep", "3600")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deps.Delete(t.Context(), "leaders", nil) })
	agenttest.Eventually(t, 60*time.Second, "2 ready pods", func() bool { n, _ := faulttest.ReadyPods(ctx, cli, "leaders"); return n == 2 })

	// Identities are <hostname>_<suffix>; the hostname is the service's.
	holder := func(lease string) string { return faulttest.LeaseHolder(ctx, cli, lease) }
	schedLeader, cmLeader := holder("capstan-scheduler"), holder("capstan-controller-manager")
	schedSvc, _, _ := strings.Cut(schedLeader, "_")
	cmSvc, _, _ := strings.Cut(cmLeader, "_")
	if !strings.HasPrefix(schedSvc, "scheduler") || !strings.HasPrefix(cmSvc, "controller-manager") {
		t.Fatalf("leases held by %q and %q", schedLeader, cmLeader)
	}
	// Time runs from when the kill has returned: until then a leader may
	// still renew (compose itself takes a second or so to start).
	s.kill(schedSvc, cmSvc)
	killed := time.Now()
	if _, err := deps.Patch(ctx, "leaders", "scale", "application/merge-patch+json", []byte(`{"spec":{"replicas":4}}`)); err != nil {
		t.Fatal(err)
	}
	var schedTakeover, cmTakeover time.Duration
	agenttest.Eventually(t, 60*time.Second, "the standbys to take the leases", func() bool {
		if h := holder("capstan-scheduler"); schedTakeover == 0 && h != "" && h != schedLeader {
			schedTakeover = time.Since(killed)
		}
		if h := holder("capstan-controller-manager"); cmTakeover == 0 && h != "" && h != cmLeader {
			cmTakeover = time.Since(killed)
		}
		return schedTakeover > 0 && cmTakeover > 0
	})
	agenttest.Eventually(t, 60*time.Second, "the scale-up to 4 ready pods", func() bool { n, _ := faulttest.ReadyPods(ctx, cli, "leaders"); return n == 4 })
	done := time.Since(killed)
	// The lease runs out at most one duration after the last renewal; a
	// retry period, the docker kill and the poll add a little.
	if d := max(schedTakeover, cmTakeover); d > leaseDuration+2*time.Second {
		t.Errorf("a standby took %v to take over; the lease is %v", d, leaseDuration)
	}
	t.Logf("leaders %s and %s killed (SIGKILL): standby scheduler took the lease after %v, standby controller-manager after %v (lease %v); scale-up 2→4 complete %v after the kill",
		schedSvc, cmSvc, schedTakeover.Round(time.Millisecond), cmTakeover.Round(time.Millisecond), leaseDuration, done.Round(time.Millisecond))
	s.start(schedSvc, cmSvc)
}

// nodeCutOff: a node disconnected from the stack's network goes NotReady
// and its pods are recreated on the other node; reconnected, it is Ready
// again and its stale pods' processes are stopped.
func nodeCutOff(t *testing.T, s *stack) {
	ctx := t.Context()
	cli := s.client(0)
	arg := fmt.Sprintf("%d", 4000+time.Now().UnixNano()%1000) // the pods run `sleep <arg>`
	cmd := "sleep " + arg
	deps := cli.Resource("apps", "v1", "deployments").Namespace("default")
	if _, err := deps.Create(ctx, faulttest.Deployment("cutoff", 2, "sleep", arg)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deps.Delete(t.Context(), "cutoff", nil) })
	node1, node2 := s.container("node1"), s.container("node2")
	running := func() (int, int) { return len(s.processes(node1, cmd)), len(s.processes(node2, cmd)) }
	var byNode map[string]int
	agenttest.Eventually(t, 60*time.Second, "2 ready pods and 2 processes", func() bool {
		var n int
		n, byNode = faulttest.ReadyPods(ctx, cli, "cutoff")
		a, b := running()
		return n == 2 && a+b == 2
	})
	cut, other := "node1", "node2"
	if byNode["node1"] == 0 {
		cut, other = "node2", "node1"
	}
	id := s.container(cut)
	network := strings.Fields(s.docker("inspect", "-f", "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}", id))[0]

	begun := time.Now()
	s.docker("network", "disconnect", network, id)
	reconnected := false
	t.Cleanup(func() {
		if !reconnected {
			s.docker("network", "connect", network, id)
		}
	})
	agenttest.Eventually(t, 60*time.Second, cut+" NotReady", func() bool { return faulttest.NodeReady(ctx, cli, cut) != "True" })
	notReady := time.Since(begun)
	agenttest.Eventually(t, 90*time.Second, "2 ready pods on "+other, func() bool {
		n, byNode := faulttest.ReadyPods(ctx, cli, "cutoff")
		return n >= 2 && byNode[other] == 2
	})
	moved := time.Since(begun)

	healed := time.Now()
	s.docker("network", "connect", network, id)
	reconnected = true
	agenttest.Eventually(t, 60*time.Second, cut+" Ready again", func() bool { return faulttest.NodeReady(ctx, cli, cut) == "True" })
	agenttest.Eventually(t, 60*time.Second, cut+"'s stale pods stopped", func() bool {
		return len(s.processes(id, cmd)) == 0
	})
	stopped := time.Since(healed)
	a, b := running()
	if n, byNode := faulttest.ReadyPods(ctx, cli, "cutoff"); n != 2 || byNode[other] != 2 || a+b != 2 {
		t.Errorf("after %s returned: %d ready pods, by node %v; processes node1 %d, node2 %d", cut, n, byNode, a, b)
	}
	t.Logf("%s (had %d of 2 pods) disconnected: NotReady after %v, pods running on %s after %v; reconnected: Ready and its stale processes stopped after %v; no duplicates (%d processes for 2 pods)",
		cut, byNode[cut], notReady.Round(time.Millisecond), other, moved.Round(time.Millisecond), stopped.Round(time.Millisecond), a+b)
}

// controlPlaneOutage: etcd, hubs, schedulers and controller-managers all
// stopped for 60s; the pods' processes on the nodes keep running, and when
// the control plane returns, status converges without restarting them.
func controlPlaneOutage(t *testing.T, s *stack) {
	ctx := t.Context()
	cli := s.client(0)
	arg := fmt.Sprintf("%d", 5000+time.Now().UnixNano()%1000)
	cmd := "sleep " + arg
	deps := cli.Resource("apps", "v1", "deployments").Namespace("default")
	if _, err := deps.Create(ctx, faulttest.Deployment("outage", 2, "sleep", arg)); err != nil {
		t.Fatal(err)
	}
	node1, node2 := s.container("node1"), s.container("node2")
	pids := func() map[string]bool {
		p := s.processes(node1, cmd)
		maps.Copy(p, s.processes(node2, cmd))
		return p
	}
	agenttest.Eventually(t, 60*time.Second, "2 ready pods and 2 processes", func() bool {
		n, _ := faulttest.ReadyPods(ctx, cli, "outage")
		return n == 2 && len(pids()) == 2
	})
	before := pids()

	const outage = 60 * time.Second
	s.stop(controlPlane...)
	stopped := time.Now()
	for time.Since(stopped) < outage {
		time.Sleep(5 * time.Second)
		if now := pids(); !maps.Equal(now, before) {
			t.Fatalf("pods' processes changed %v into the outage: %v, before %v", time.Since(stopped).Round(time.Second), now, before)
		}
	}
	back := time.Now()
	s.start(controlPlane...)
	s.waitHealthy(servers...)
	agenttest.Eventually(t, 90*time.Second, "both nodes Ready and 2 ready pods", func() bool {
		n, _ := faulttest.ReadyPods(ctx, cli, "outage")
		return n == 2 && faulttest.NodeReady(ctx, cli, "node1") == "True" && faulttest.NodeReady(ctx, cli, "node2") == "True"
	})
	converged := time.Since(back)
	if now := pids(); !maps.Equal(now, before) {
		t.Fatalf("pods' processes were restarted after the outage: %v, before %v", now, before)
	}
	l, err := cli.Resource("", "v1", "pods").Namespace("default").List(ctx, client.ListOptions{LabelSelector: "app=outage"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Items {
		cs, _ := api.Nested(p, "status", "containerStatuses").([]any)
		for _, c := range cs {
			if rc := fmt.Sprint(c.(map[string]any)["restartCount"]); rc != "0" {
				t.Errorf("pod %s: restartCount %s after the outage", p.Name(), rc)
			}
		}
	}
	t.Logf("control plane stopped for %v: pods' processes untouched (%d alive, same pids); status converged %v after it was started again",
		outage, len(before), converged.Round(time.Millisecond))
	deps.Delete(ctx, "outage", nil)
}

// crashConsistency: both hub replicas SIGKILLed during 1,000 creates.
func crashConsistency(t *testing.T, s *stack) {
	faulttest.CrashConsistency(t, []*client.Client{s.client(0), s.client(1)},
		func() { s.kill(servers...) },
		func() *client.Client {
			s.start(servers...)
			s.waitHealthy(servers...)
			return s.client(0)
		})
}
