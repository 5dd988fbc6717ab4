package printers

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/capstan-io/capstan/apiserver/api"
)

var podColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
	column("Status", "string", "The aggregate status of the containers in this pod."),
	column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
	ageColumn,
	wide("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
	wide("Node", "string", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"),
	wide("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled."),
	wide("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"),
}

// nodeUnreachablePodReason is the status.reason the node lifecycle controller
// sets on pods of a lost node; such pods print as "Unknown" while deleting.
const nodeUnreachablePodReason = "NodeLost"

// podRow is kube's printPod (Kubernetes 1.32).
func podRow(o api.Object, now time.Time) []any {
	ready, status, restarts := podStatus(o, now)
	cells := []any{o.Name(), ready, status, restarts, age(o, now)}

	// Kube reads status.podIPs[0]; status.podIP covers objects written without podIPs.
	podIP := api.NestedString(o, "status", "podIP")
	if ips := objects(api.NestedSlice(o, "status", "podIPs")); len(ips) > 0 {
		podIP = api.NestedString(ips[0], "ip")
	}
	return append(cells,
		orNone(podIP),
		stringOr(o, "<none>", "spec", "nodeName"),
		stringOr(o, "<none>", "status", "nominatedNodeName"),
		readinessGates(o),
	)
}

// podStatus computes the Ready, Status and Restarts cells.
func podStatus(o api.Object, now time.Time) (ready, reason, restarts string) {
	var (
		restartCount, restartableInitRestarts int64
		lastRestart, lastRestartableInit      time.Time
		readyContainers                       int
	)
	containers := api.NestedSlice(o, "spec", "containers")
	totalContainers := len(containers)

	phase := api.NestedString(o, "status", "phase")
	reason = stringOr(o, phase, "status", "reason")
	conditions := objects(api.NestedSlice(o, "status", "conditions"))
	for _, c := range conditions {
		if api.NestedString(c, "type") == "PodScheduled" && api.NestedString(c, "reason") == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}

	specInit := objects(api.NestedSlice(o, "spec", "initContainers"))
	restartable := map[string]bool{} // init containers that are sidecars
	for _, c := range specInit {
		if api.NestedString(c, "restartPolicy") == "Always" {
			restartable[api.NestedString(c, "name")] = true
			totalContainers++
		}
	}

	initializing := false
	for i, cs := range objects(api.NestedSlice(o, "status", "initContainerStatuses")) {
		n := api.Int64(cs["restartCount"])
		restartCount += n
		finished := lastTerminated(cs)
		lastRestart = later(lastRestart, finished)
		sidecar := restartable[api.NestedString(cs, "name")]
		if sidecar {
			restartableInitRestarts += n
			lastRestartableInit = later(lastRestartableInit, finished)
		}
		waiting := api.NestedString(cs, "state", "waiting", "reason")
		switch {
		case has(cs, "state", "terminated") && api.Int64(api.Nested(cs, "state", "terminated", "exitCode")) == 0:
			continue
		case sidecar && boolean(cs, "started"):
			if boolean(cs, "ready") {
				readyContainers++
			}
			continue
		case has(cs, "state", "terminated"):
			// Initialization failed.
			reason = "Init:" + terminatedReason(api.NestedMap(cs, "state", "terminated"))
		case waiting != "" && waiting != "PodInitializing":
			reason = "Init:" + waiting
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(specInit))
		}
		// The first init container that has not finished decides the status.
		initializing = true
		break
	}

	if !initializing || hasCondition(conditions, "Initialized") {
		restartCount = restartableInitRestarts
		lastRestart = lastRestartableInit
		hasRunning := false
		statuses := objects(api.NestedSlice(o, "status", "containerStatuses"))
		for i := len(statuses) - 1; i >= 0; i-- {
			cs := statuses[i]
			restartCount += api.Int64(cs["restartCount"])
			lastRestart = later(lastRestart, lastTerminated(cs))
			switch {
			case api.NestedString(cs, "state", "waiting", "reason") != "":
				reason = api.NestedString(cs, "state", "waiting", "reason")
			case has(cs, "state", "terminated"):
				reason = terminatedReason(api.NestedMap(cs, "state", "terminated"))
			case boolean(cs, "ready") && has(cs, "state", "running"):
				hasRunning = true
				readyContainers++
			}
		}
		// A pod whose last container completed is still Running while another runs.
		if reason == "Completed" && hasRunning {
			if hasCondition(conditions, "Ready") {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}

	if o.DeletionTimestamp() != "" {
		switch {
		case api.NestedString(o, "status", "reason") == nodeUnreachablePodReason:
			reason = "Unknown"
		case phase != "Failed" && phase != "Succeeded":
			reason = "Terminating"
		}
	}

	restarts = strconv.FormatInt(restartCount, 10)
	if restartCount != 0 && !lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", restartCount, duration.HumanDuration(now.Sub(lastRestart)))
	}
	return fmt.Sprintf("%d/%d", readyContainers, totalContainers), reason, restarts
}

// terminatedReason is a terminated state's reason, else "Signal:N" or "ExitCode:N".
func terminatedReason(t map[string]any) string {
	if r := api.NestedString(t, "reason"); r != "" {
		return r
	}
	if sig := api.Int64(t["signal"]); sig != 0 {
		return fmt.Sprintf("Signal:%d", sig)
	}
	return fmt.Sprintf("ExitCode:%d", api.Int64(t["exitCode"]))
}

// lastTerminated is lastState.terminated.finishedAt, or the zero time.
func lastTerminated(cs map[string]any) time.Time {
	t, _ := parseTime(api.NestedString(cs, "lastState", "terminated", "finishedAt"))
	return t
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// hasCondition reports whether the condition of type typ has status True.
func hasCondition(conditions []map[string]any, typ string) bool {
	for _, c := range conditions {
		if api.NestedString(c, "type") == typ && api.NestedString(c, "status") == "True" {
			return true
		}
	}
	return false
}

// readinessGates is "true/total" over spec.readinessGates, or "<none>".
func readinessGates(o api.Object) string {
	gates := objects(api.NestedSlice(o, "spec", "readinessGates"))
	if len(gates) == 0 {
		return "<none>"
	}
	conditions := objects(api.NestedSlice(o, "status", "conditions"))
	trueConditions := 0
	for _, g := range gates {
		for _, c := range conditions {
			if api.NestedString(c, "type") == api.NestedString(g, "conditionType") {
				if api.NestedString(c, "status") == "True" {
					trueConditions++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", trueConditions, len(gates))
}
