package scheduler

// Score ranks a node that passed the filters for p; higher is better. It is
// least-allocated (the mean free share of cpu and memory after placing p,
// 0..100) plus, for pods with an owner, a spread term (0..100) that is highest
// on the nodes holding the fewest pods of that owner. maxOwned is the most
// pods of p's owner on any feasible node. Scores are not rounded, so equal
// scores mean equal nodes and the caller breaks ties at random.
func Score(p *Pod, n *NodeState, maxOwned int) float64 {
	s := (free(n.NonZeroRequested.MilliCPU+p.NonZero.MilliCPU, n.Allocatable.MilliCPU) +
		free(n.NonZeroRequested.Memory+p.NonZero.Memory, n.Allocatable.Memory)) / 2
	if p.Owner != "" && maxOwned > 0 {
		s += 100 * float64(maxOwned-n.Owners[p.Owner]) / float64(maxOwned)
	}
	return s
}

// free is the share of capacity left after used, as 0..100.
func free(used, capacity int64) float64 {
	if capacity <= 0 || used >= capacity {
		return 0
	}
	return 100 * float64(capacity-used) / float64(capacity)
}
