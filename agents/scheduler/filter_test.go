package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func node(name string, mut ...func(*Node)) *NodeState {
	n := &Node{Name: name, Ready: true, Labels: map[string]string{"kubernetes.io/hostname": name},
		Allocatable: Resources{MilliCPU: 4000, Memory: 8 << 30, Pods: 110}}
	for _, m := range mut {
		m(n)
	}
	return newNodeState(n)
}

func pod(mut ...func(*Pod)) *Pod {
	p := &Pod{Key: "ns/p", Namespace: "ns", Name: "p", Requests: Resources{MilliCPU: 100, Memory: 1 << 20, Pods: 1}}
	p.NonZero = p.Requests
	for _, m := range mut {
		m(p)
	}
	return p
}

func TestFilter(t *testing.T) {
	t.Parallel()
	gpuTaint := func(n *Node) {
		n.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	}
	affinity := func(exprs ...corev1.NodeSelectorRequirement) func(*Pod) {
		return func(p *Pod) {
			p.Affinity = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}}
		}
	}
	req := func(key string, op corev1.NodeSelectorOperator, vals ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}
	}
	labelled := func(n *Node) { n.Labels["zone"] = "a"; n.Labels["cores"] = "8" }
	full := node("full")
	full.add(&Pod{Requests: Resources{MilliCPU: 3950, Memory: 7 << 30, Pods: 1}, Ports: []HostPort{{"TCP", "", 80}}}, 1)

	for _, tc := range []struct {
		name string
		pod  *Pod
		node *NodeState
		want []string
	}{
		{"fits", pod(), node("n"), nil},
		{"not ready", pod(), node("n", func(n *Node) { n.Ready = false }), []string{ReasonNotReady}},
		{"unschedulable", pod(), node("n", func(n *Node) { n.Unschedulable = true }), []string{ReasonUnschedulable}},
		{"untolerated taint", pod(), node("n", gpuTaint), []string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"tolerated by Equal", pod(func(p *Pod) {
			p.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		}), node("n", gpuTaint), nil},
		{"tolerated by Exists without key", pod(func(p *Pod) {
			p.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		}), node("n", gpuTaint), nil},
		{"wrong value not tolerated", pod(func(p *Pod) {
			p.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "cpu"}}
		}), node("n", gpuTaint), []string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"NoExecute needs toleration", pod(func(p *Pod) {
			p.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}), node("n", func(n *Node) { n.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoExecute}} }), []string{"node(s) had untolerated taint {k: }"}},
		{"PreferNoSchedule ignored", pod(), node("n", func(n *Node) { n.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectPreferNoSchedule}} }), nil},
		{"nodeSelector match", pod(func(p *Pod) { p.NodeSelector = map[string]string{"zone": "a"} }), node("n", labelled), nil},
		{"nodeSelector mismatch", pod(func(p *Pod) { p.NodeSelector = map[string]string{"zone": "b"} }), node("n", labelled), []string{ReasonAffinity}},
		{"affinity In", pod(affinity(req("zone", corev1.NodeSelectorOpIn, "a", "b"))), node("n", labelled), nil},
		{"affinity In miss", pod(affinity(req("zone", corev1.NodeSelectorOpIn, "b"))), node("n", labelled), []string{ReasonAffinity}},
		{"affinity NotIn", pod(affinity(req("zone", corev1.NodeSelectorOpNotIn, "a"))), node("n", labelled), []string{ReasonAffinity}},
		{"affinity NotIn absent label", pod(affinity(req("rack", corev1.NodeSelectorOpNotIn, "a"))), node("n", labelled), nil},
		{"affinity Exists", pod(affinity(req("zone", corev1.NodeSelectorOpExists))), node("n", labelled), nil},
		{"affinity DoesNotExist", pod(affinity(req("zone", corev1.NodeSelectorOpDoesNotExist))), node("n", labelled), []string{ReasonAffinity}},
		{"affinity Gt", pod(affinity(req("cores", corev1.NodeSelectorOpGt, "4"))), node("n", labelled), nil},
		{"affinity Gt fails", pod(affinity(req("cores", corev1.NodeSelectorOpGt, "8"))), node("n", labelled), []string{ReasonAffinity}},
		{"affinity Lt", pod(affinity(req("cores", corev1.NodeSelectorOpLt, "16"))), node("n", labelled), nil},
		{"affinity Lt non-integer", pod(affinity(req("zone", corev1.NodeSelectorOpLt, "16"))), node("n", labelled), []string{ReasonAffinity}},
		{"affinity ANDs expressions", pod(affinity(req("zone", corev1.NodeSelectorOpIn, "a"), req("cores", corev1.NodeSelectorOpGt, "100"))), node("n", labelled), []string{ReasonAffinity}},
		{"affinity ORs terms", pod(func(p *Pod) {
			p.Affinity = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{req("zone", corev1.NodeSelectorOpIn, "x")}},
				{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "n")}},
			}}
		}), node("n", labelled), nil},
		{"insufficient cpu", pod(), full, []string{ReasonCPU}},
		{"insufficient cpu and memory", pod(func(p *Pod) { p.Requests.MilliCPU, p.Requests.Memory = 100, 2<<30 }), full, []string{ReasonCPU, ReasonMemory}},
		{"too many pods", pod(), node("n", func(n *Node) { n.Allocatable.Pods = 0 }), []string{ReasonTooManyPods}},
		{"zero request fits a full node", pod(func(p *Pod) { p.Requests = Resources{Pods: 1} }), full, nil},
		{"host port conflict", pod(func(p *Pod) { p.Ports = []HostPort{{"TCP", "10.0.0.1", 80}} }), full, []string{ReasonPorts}},
		{"host port other protocol", pod(func(p *Pod) { p.Requests = Resources{Pods: 1}; p.Ports = []HostPort{{"UDP", "", 80}} }), full, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Filter(tc.pod, tc.node); !slices.Equal(got, tc.want) {
				t.Fatalf("Filter = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	empty, busy := node("empty"), node("busy")
	busy.add(pod(func(p *Pod) { p.NonZero = Resources{MilliCPU: 2000, Memory: 4 << 30, Pods: 1} }), 1)
	owned := node("owned")
	owned.add(pod(func(p *Pod) { p.Owner = "rs" }), 1)
	for _, tc := range []struct {
		name          string
		pod           *Pod
		better, worse *NodeState
		maxOwned      int
	}{
		{"least allocated wins", pod(), empty, busy, 0},
		{"spread away from same owner", pod(func(p *Pod) { p.Owner = "rs" }), empty, owned, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if b, w := Score(tc.pod, tc.better, tc.maxOwned), Score(tc.pod, tc.worse, tc.maxOwned); b <= w {
				t.Fatalf("score %s = %v, %s = %v; want the first higher", tc.better.Name, b, tc.worse.Name, w)
			}
		})
	}
}

func TestFitErrorMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fe   FitError
		want string
	}{
		{"issue example", FitError{NumNodes: 3, Reasons: map[string]int{ReasonMemory: 2, "node(s) had untolerated taint {dedicated: gpu}": 1}},
			"0/3 nodes are available: 2 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}."},
		{"ties by text", FitError{NumNodes: 2, Reasons: map[string]int{ReasonMemory: 1, ReasonCPU: 1}},
			"0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."},
		{"no nodes", FitError{Reasons: map[string]int{}}, "0/0 nodes are available."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.fe.Error(); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestCacheSpread places identical pods on identical nodes and checks the
// counts stay within one of each other, as the benchmark demands of the hub.
func TestCacheSpread(t *testing.T) {
	t.Parallel()
	c := NewCache()
	for i := range 10 {
		c.SetNode(node(string(rune('a' + i))).Node)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 95 {
		p := pod(func(p *Pod) { p.Key = "ns/p" + string(rune(i)) })
		if _, fe := c.Schedule(p, rnd); fe != nil {
			t.Fatal(fe)
		}
	}
	lo, hi := 1<<30, 0
	for _, n := range c.Counts() {
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi-lo > 1 {
		t.Fatalf("spread %d..%d, want within 1", lo, hi)
	}
	c.Forget("ns/p" + string(rune(0)))
	if c.Assumed("ns/p" + string(rune(0))) {
		t.Fatal("Forget kept the assumption")
	}
}
