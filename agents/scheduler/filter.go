package scheduler

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Failure reasons, worded as kube-scheduler words them.
const (
	ReasonNotReady      = "node(s) were not ready"
	ReasonUnschedulable = "node(s) were unschedulable"
	ReasonAffinity      = "node(s) didn't match Pod's node affinity/selector"
	ReasonPorts         = "node(s) didn't have free ports for the requested pod ports"
	ReasonTooManyPods   = "Too many pods"
	ReasonCPU           = "Insufficient cpu"
	ReasonMemory        = "Insufficient memory"
)

// Filter says why p cannot run on n; nil means it fits. Filters run in
// kube-scheduler's order and stop at the first that fails, except resource
// fit, which reports every resource that is short.
func Filter(p *Pod, n *NodeState) []string {
	switch {
	case !n.Ready:
		return []string{ReasonNotReady}
	case n.Unschedulable && !tolerates(p.Tolerations, corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}):
		return []string{ReasonUnschedulable}
	}
	if t, ok := untolerated(p.Tolerations, n.Taints); ok {
		return []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)}
	}
	if !matchesSelector(p.NodeSelector, n.Labels) || !matchesAffinity(p.Affinity, n.Node) {
		return []string{ReasonAffinity}
	}
	if portsConflict(p.Ports, n.Ports) {
		return []string{ReasonPorts}
	}
	return resourceFit(p.Requests, n.Requested, n.Allocatable)
}

// resourceFit reports each resource whose request exceeds what is left.
func resourceFit(req, used, alloc Resources) []string {
	var out []string
	if used.Pods+req.Pods > alloc.Pods {
		out = append(out, ReasonTooManyPods)
	}
	if req.MilliCPU > 0 && used.MilliCPU+req.MilliCPU > alloc.MilliCPU {
		out = append(out, ReasonCPU)
	}
	if req.Memory > 0 && used.Memory+req.Memory > alloc.Memory {
		out = append(out, ReasonMemory)
	}
	return out
}

// untolerated returns the first NoSchedule or NoExecute taint no toleration covers.
func untolerated(tols []corev1.Toleration, taints []corev1.Taint) (corev1.Taint, bool) {
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerates(tols, t) {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

// tolerates reports whether any toleration matches taint, with Kubernetes'
// rules: an empty effect matches every effect; operator Exists with an empty
// key matches every taint; Equal (the default) compares values.
func tolerates(tols []corev1.Toleration, t corev1.Taint) bool {
	return slices.ContainsFunc(tols, func(tol corev1.Toleration) bool {
		if tol.Effect != "" && tol.Effect != t.Effect {
			return false
		}
		if tol.Key == "" {
			return tol.Operator == corev1.TolerationOpExists
		}
		if tol.Key != t.Key {
			return false
		}
		switch tol.Operator {
		case corev1.TolerationOpExists:
			return true
		case corev1.TolerationOpEqual, "":
			return tol.Value == t.Value
		}
		return false
	})
}

func matchesSelector(sel, labels map[string]string) bool {
	for k, v := range sel {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// matchesAffinity applies required node affinity: terms are ORed, the
// expressions and fields within a term ANDed. An empty term list matches nothing.
func matchesAffinity(ns *corev1.NodeSelector, n *Node) bool {
	if ns == nil {
		return true
	}
	return slices.ContainsFunc(ns.NodeSelectorTerms, func(term corev1.NodeSelectorTerm) bool {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			return false
		}
		for _, e := range term.MatchExpressions {
			v, ok := n.Labels[e.Key]
			if !matchesRequirement(e, v, ok) {
				return false
			}
		}
		for _, e := range term.MatchFields {
			if e.Key != "metadata.name" || !matchesRequirement(e, n.Name, true) {
				return false
			}
		}
		return true
	})
}

func matchesRequirement(e corev1.NodeSelectorRequirement, v string, present bool) bool {
	switch e.Operator {
	case corev1.NodeSelectorOpIn:
		return present && slices.Contains(e.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !present || !slices.Contains(e.Values, v)
	case corev1.NodeSelectorOpExists:
		return present
	case corev1.NodeSelectorOpDoesNotExist:
		return !present
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present || len(e.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(e.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if e.Operator == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

// portsConflict reports whether any wanted host port is taken: same protocol
// and port, and the same IP or either side on every address.
func portsConflict(want []HostPort, used map[HostPort]int) bool {
	for _, w := range want {
		for u := range used {
			if u.Protocol != w.Protocol || u.Port != w.Port {
				continue
			}
			if anyIP(u.IP) || anyIP(w.IP) || u.IP == w.IP {
				return true
			}
		}
	}
	return false
}

func anyIP(ip string) bool { return ip == "" || ip == "0.0.0.0" || ip == "::" }
