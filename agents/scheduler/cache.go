package scheduler

import (
	"math/rand/v2"
	"reflect"
	"sync"
)

// NodeState is a node with the pods bound or assumed on it.
type NodeState struct {
	*Node
	// Requested sums the pods' requests; NonZeroRequested uses scoring defaults.
	Requested, NonZeroRequested Resources
	// Ports counts host ports in use.
	Ports map[HostPort]int
	// Owners counts pods by owner uid.
	Owners map[string]int
}

func newNodeState(n *Node) *NodeState {
	return &NodeState{Node: n, Ports: map[HostPort]int{}, Owners: map[string]int{}}
}

func (s *NodeState) add(p *Pod, sign int) {
	if sign > 0 {
		s.Requested.add(p.Requests)
		s.NonZeroRequested.add(p.NonZero)
	} else {
		s.Requested.sub(p.Requests)
		s.NonZeroRequested.sub(p.NonZero)
	}
	for _, hp := range p.Ports {
		if s.Ports[hp] += sign; s.Ports[hp] <= 0 {
			delete(s.Ports, hp)
		}
	}
	if p.Owner != "" {
		if s.Owners[p.Owner] += sign; s.Owners[p.Owner] <= 0 {
			delete(s.Owners, p.Owner)
		}
	}
}

type cachedPod struct {
	pod     *Pod
	node    string
	assumed bool // chosen by us, binding not yet seen in the watch
}

// Cache is the scheduler's view of nodes and of the pods that hold resources
// on them. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	nodes map[string]*NodeState // a state with a nil Node holds pods bound to a node not yet seen
	pods  map[string]*cachedPod
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{nodes: map[string]*NodeState{}, pods: map[string]*cachedPod{}}
}

// SetNode adds or replaces a node; it reports whether anything that affects
// scheduling changed (not just a heartbeat).
func (c *Cache) SetNode(n *Node) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.nodes[n.Name]
	if !ok {
		c.nodes[n.Name] = newNodeState(n)
		return true
	}
	changed := s.Node == nil || !reflect.DeepEqual(*s.Node, *n)
	s.Node = n
	return changed
}

// RemoveNode forgets a node (its pods stay accounted until they go).
func (c *Cache) RemoveNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.nodes[name]; ok {
		s.Node = nil
	}
}

// SetPod records a pod bound to p.NodeName, confirming any assumption. Pods
// that are terminal, or not bound, are removed instead. It reports whether
// resources were freed (a pod left a node).
func (c *Cache) SetPod(p *Pod) (freed bool) {
	if p.NodeName == "" || p.Terminal {
		return c.RemovePod(p.Key)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.pods[p.Key]; ok {
		if !old.assumed && old.node == p.NodeName && reflect.DeepEqual(old.pod.Requests, p.Requests) {
			old.pod = p
			return false
		}
		c.unaccount(old)
	}
	c.account(&cachedPod{pod: p, node: p.NodeName})
	return false
}

// RemovePod forgets a pod; it reports whether it held resources.
func (c *Cache) RemovePod(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.pods[key]
	if ok {
		c.unaccount(old)
	}
	return ok
}

// Assumed reports whether key is assumed (chosen but not yet seen bound).
func (c *Cache) Assumed(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp, ok := c.pods[key]
	return ok && cp.assumed
}

// Forget drops key's assumption if it is still only assumed (the binding failed).
func (c *Cache) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cp, ok := c.pods[key]; ok && cp.assumed {
		c.unaccount(cp)
	}
}

func (c *Cache) account(cp *cachedPod) {
	s, ok := c.nodes[cp.node]
	if !ok {
		s = newNodeState(nil)
		c.nodes[cp.node] = s
	}
	s.add(cp.pod, 1)
	c.pods[cp.pod.Key] = cp
}

func (c *Cache) unaccount(cp *cachedPod) {
	if s, ok := c.nodes[cp.node]; ok {
		s.add(cp.pod, -1)
		if s.Node == nil && s.Requested.Pods <= 0 {
			delete(c.nodes, cp.node)
		}
	}
	delete(c.pods, cp.pod.Key)
}

// Schedule filters and scores every known node for p. On success p is
// assumed on the chosen node and its name returned; otherwise the FitError
// says why no node fits.
func (c *Cache) Schedule(p *Pod, rnd *rand.Rand) (string, *FitError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fe := &FitError{Reasons: map[string]int{}}
	feasible := make([]*NodeState, 0, len(c.nodes))
	maxOwned := 0
	for _, s := range c.nodes {
		if s.Node == nil {
			continue
		}
		fe.NumNodes++
		if reasons := Filter(p, s); len(reasons) > 0 {
			for _, r := range reasons {
				fe.Reasons[r]++
			}
			continue
		}
		feasible = append(feasible, s)
		if p.Owner != "" {
			maxOwned = max(maxOwned, s.Owners[p.Owner])
		}
	}
	if len(feasible) == 0 {
		return "", fe
	}
	var best *NodeState
	bestScore, ties := -1.0, 0
	for _, s := range feasible {
		sc := Score(p, s, maxOwned)
		switch {
		case sc > bestScore:
			best, bestScore, ties = s, sc, 1
		case sc == bestScore:
			// Reservoir sampling: each tied node is kept with equal probability.
			ties++
			if rnd.IntN(ties) == 0 {
				best = s
			}
		}
	}
	if old, ok := c.pods[p.Key]; ok {
		c.unaccount(old)
	}
	c.account(&cachedPod{pod: p, node: best.Name, assumed: true})
	return best.Name, nil
}

// Counts returns the number of pods (bound or assumed) on each known node.
func (c *Cache) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for name, s := range c.nodes {
		if s.Node != nil {
			out[name] = int(s.Requested.Pods)
		}
	}
	return out
}
