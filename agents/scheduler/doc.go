// Package scheduler is Capstan's pod scheduler. It watches pods that have no
// spec.nodeName and name this scheduler (schedulerName "default-scheduler" or
// empty), and nodes; it picks a node for each pod and binds it through
// POST pods/<name>/binding.
//
// One goroutine makes decisions, in queue order, against a Cache of nodes and
// the pods bound or assumed on them; binders write the bindings concurrently.
// A pod is "assumed" on its node the moment it is chosen, so the next decision
// already counts its requests without waiting for the watch round trip; the
// assumption is confirmed when the watch shows the pod bound, and dropped if
// the binding fails.
//
// Filters (filter.go) are pure functions over a pod and a node; so is scoring
// (score.go): least-allocated plus spreading pods of the same owner, with
// ties broken at random. A pod that fits nowhere gets PodScheduled=False,
// reason Unschedulable, a Kubernetes-form message and a FailedScheduling
// event, and waits until a node or a bound pod changes (or FlushInterval
// passes) before it is tried again, with per-pod backoff.
package scheduler
