package nodeagent

import (
	"strings"

	"github.com/capstan-io/capstan/agents/containers/cgroups"
)

// annotationLimits on the Node says which container limits the node enforces
// (cgroups.Support.String, such as "memory,cpu (cgroup v1)").
const annotationLimits = "capstan.io/container-limits"

// limitSupporter is a runtime that enforces container limits (the process runtime).
type limitSupporter interface{ LimitSupport() cgroups.Support }

// limitSupport is what the agent's runtime enforces.
func (a *Agent) limitSupport() cgroups.Support {
	if ls, ok := a.cfg.Runtime.(limitSupporter); ok {
		return ls.LimitSupport()
	}
	return cgroups.Support{Reason: "the " + a.runtimeName + " runtime enforces no limits"}
}

// unenforced says which of l this node does not enforce, and why; "" when it
// enforces them all.
func (a *Agent) unenforced(l cgroups.Limits) string {
	s := a.limitSupport()
	var not []string
	if l.MemoryBytes > 0 && !s.Memory {
		not = append(not, "memory")
	}
	if l.CPUMillis > 0 && !s.CPU {
		not = append(not, "cpu")
	}
	switch len(not) {
	case 0:
		return ""
	case 1:
		return not[0] + " limit is not enforced on this node: " + s.Reason
	}
	return strings.Join(not, " and ") + " limits are not enforced on this node: " + s.Reason
}
