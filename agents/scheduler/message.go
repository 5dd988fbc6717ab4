package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// FitError is why a pod fits on no node, as counts of reasons.
type FitError struct {
	NumNodes int
	Reasons  map[string]int
}

// Error renders the Kubernetes form: "0/3 nodes are available: 2 Insufficient
// memory, 1 node(s) had untolerated taint {dedicated: gpu}." Reasons are in
// descending count, then by text.
func (e *FitError) Error() string {
	type rc struct {
		reason string
		n      int
	}
	var rs []rc
	for r, n := range e.Reasons {
		rs = append(rs, rc{r, n})
	}
	slices.SortFunc(rs, func(a, b rc) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.reason, b.reason)
	})
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d %s", r.n, r.reason)
	}
	msg := fmt.Sprintf("0/%d nodes are available", e.NumNodes)
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "."
}
