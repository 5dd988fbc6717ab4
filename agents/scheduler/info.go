package scheduler

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
)

// Defaults Kubernetes uses when scoring a pod that requests nothing, so that
// such pods still spread.
const (
	defaultMilliCPU = 100
	defaultMemory   = 200 << 20
)

// Resources is an amount of cpu (millicores), memory (bytes) and pods.
type Resources struct {
	MilliCPU, Memory, Pods int64
}

func (r *Resources) add(o Resources) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.Pods += o.Pods
}

func (r *Resources) sub(o Resources) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.Pods -= o.Pods
}

// HostPort is a port a pod claims on its node.
type HostPort struct {
	Protocol, IP string
	Port         int32
}

// Pod is what scheduling needs to know about a pod.
type Pod struct {
	Key, Namespace, Name, UID string
	NodeName, SchedulerName   string
	// Requests is what the pod asks for (Pods is 1); NonZero is the same with
	// Kubernetes' defaults for unset cpu and memory, used for scoring.
	Requests, NonZero Resources
	NodeSelector      map[string]string
	Affinity          *corev1.NodeSelector // required node affinity, or nil
	Tolerations       []corev1.Toleration
	Ports             []HostPort
	// Owner is the uid of the pod's controller (or first) owner, "" if none.
	Owner string
	// Terminal is true for Succeeded or Failed pods, which hold no resources.
	Terminal bool
	// Deleting is true once deletionTimestamp is set.
	Deleting bool
	// Object is the pod as read, for events and status writes.
	Object api.Object
}

// Node is what scheduling needs to know about a node.
type Node struct {
	Name          string
	Labels        map[string]string
	Taints        []corev1.Taint
	Unschedulable bool
	Ready         bool
	Allocatable   Resources
}

// ParsePod reads what scheduling needs from a decoded pod. It walks the
// decoded JSON directly (a typed round trip per watch event was a tenth of
// the benchmark's CPU); only tolerations and node affinity, when present,
// are converted to their k8s.io/api types.
func ParsePod(o api.Object) (*Pod, error) {
	spec := api.NestedMap(o, "spec")
	phase := api.NestedString(o, "status", "phase")
	pi := &Pod{
		Key: informer.Key(o), Namespace: o.Namespace(), Name: o.Name(), UID: o.UID(),
		NodeName: api.NestedString(spec, "nodeName"), SchedulerName: api.NestedString(spec, "schedulerName"),
		NodeSelector: stringMap(api.NestedMap(spec, "nodeSelector")),
		Terminal:     phase == string(corev1.PodSucceeded) || phase == string(corev1.PodFailed),
		Deleting:     o.DeletionTimestamp() != "",
		Object:       o,
	}
	if t, ok := spec["tolerations"]; ok {
		if err := convert(t, &pi.Tolerations); err != nil {
			return nil, fmt.Errorf("pod %s: tolerations: %w", pi.Key, err)
		}
	}
	if a := api.NestedMap(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"); a != nil {
		pi.Affinity = &corev1.NodeSelector{}
		if err := convert(a, pi.Affinity); err != nil {
			return nil, fmt.Errorf("pod %s: node affinity: %w", pi.Key, err)
		}
	}
	for _, r := range api.NestedSlice(o, "metadata", "ownerReferences") {
		m, _ := r.(map[string]any)
		if uid, _ := m["uid"].(string); uid != "" && (pi.Owner == "" || m["controller"] == true) {
			pi.Owner = uid
		}
	}
	var err error
	if pi.Requests, pi.NonZero, err = podRequests(spec); err != nil {
		return nil, fmt.Errorf("pod %s: %w", pi.Key, err)
	}
	for _, c := range api.NestedSlice(spec, "containers") {
		cm, _ := c.(map[string]any)
		for _, port := range api.NestedSlice(cm, "ports") {
			pm, _ := port.(map[string]any)
			hp := int32(api.Int64(pm["hostPort"]))
			if hp <= 0 {
				continue
			}
			proto := api.NestedString(pm, "protocol")
			if proto == "" {
				proto = "TCP"
			}
			pi.Ports = append(pi.Ports, HostPort{Protocol: proto, IP: api.NestedString(pm, "hostIP"), Port: hp})
		}
	}
	return pi, nil
}

// podRequests sums the containers' requests (limits stand in for unset
// requests) and takes the larger of that and each init container's.
func podRequests(spec map[string]any) (req, nonZero Resources, err error) {
	one := func(c any) (cpu, mem int64) {
		cm, _ := c.(map[string]any)
		get := func(name string) *resource.Quantity {
			for _, kind := range []string{"requests", "limits"} {
				v, ok := api.NestedMap(cm, "resources", kind)[name]
				if !ok {
					continue
				}
				q, perr := quantity(v)
				if perr != nil {
					err = fmt.Errorf("%s %s: %w", kind, name, perr)
					return nil
				}
				return &q
			}
			return nil
		}
		if q := get("cpu"); q != nil {
			cpu = q.MilliValue()
		}
		if q := get("memory"); q != nil {
			mem = q.Value()
		}
		return cpu, mem
	}
	for _, c := range api.NestedSlice(spec, "containers") {
		cpu, mem := one(c)
		req.MilliCPU += cpu
		req.Memory += mem
		nonZero.MilliCPU += orDefault(cpu, defaultMilliCPU)
		nonZero.Memory += orDefault(mem, defaultMemory)
	}
	for _, c := range api.NestedSlice(spec, "initContainers") {
		cpu, mem := one(c)
		req.MilliCPU = max(req.MilliCPU, cpu)
		req.Memory = max(req.Memory, mem)
	}
	req.Pods, nonZero.Pods = 1, 1
	return req, nonZero, err
}

// quantity parses a decoded quantity: a string such as "100m" or a bare number.
func quantity(v any) (resource.Quantity, error) {
	switch t := v.(type) {
	case string:
		return resource.ParseQuantity(t)
	case json.Number:
		return resource.ParseQuantity(t.String())
	}
	return resource.Quantity{}, fmt.Errorf("quantity %v is not a string or number", v)
}

func stringMap(m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

func orDefault(v, d int64) int64 {
	if v == 0 {
		return d
	}
	return v
}

// ParseNode converts a decoded node.
func ParseNode(o api.Object) (*Node, error) {
	var n corev1.Node
	if err := convert(o, &n); err != nil {
		return nil, fmt.Errorf("decoding node %s: %w", o.Name(), err)
	}
	ni := &Node{Name: n.Name, Labels: n.Labels, Taints: n.Spec.Taints, Unschedulable: n.Spec.Unschedulable}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ni.Ready = c.Status == corev1.ConditionTrue
		}
	}
	a := n.Status.Allocatable
	if q, ok := a[corev1.ResourceCPU]; ok {
		ni.Allocatable.MilliCPU = q.MilliValue()
	}
	if q, ok := a[corev1.ResourceMemory]; ok {
		ni.Allocatable.Memory = q.Value()
	}
	if q, ok := a[corev1.ResourcePods]; ok {
		ni.Allocatable.Pods = q.Value()
	}
	return ni, nil
}

// convert decodes a decoded JSON value into a typed struct.
func convert(o any, into any) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
