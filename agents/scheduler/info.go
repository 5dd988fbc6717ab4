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

// ParsePod converts a decoded pod.
func ParsePod(o api.Object) (*Pod, error) {
	var p corev1.Pod
	if err := convert(o, &p); err != nil {
		return nil, fmt.Errorf("decoding pod %s: %w", informer.Key(o), err)
	}
	pi := &Pod{
		Key: informer.Key(o), Namespace: p.Namespace, Name: p.Name, UID: string(p.UID),
		NodeName: p.Spec.NodeName, SchedulerName: p.Spec.SchedulerName,
		NodeSelector: p.Spec.NodeSelector, Tolerations: p.Spec.Tolerations,
		Terminal: p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed,
		Deleting: p.DeletionTimestamp != nil,
		Object:   o,
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		pi.Affinity = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	for _, r := range p.OwnerReferences {
		if pi.Owner == "" || (r.Controller != nil && *r.Controller) {
			pi.Owner = string(r.UID)
		}
	}
	pi.Requests, pi.NonZero = podRequests(&p.Spec)
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.HostPort > 0 {
				proto := string(port.Protocol)
				if proto == "" {
					proto = "TCP"
				}
				pi.Ports = append(pi.Ports, HostPort{Protocol: proto, IP: port.HostIP, Port: port.HostPort})
			}
		}
	}
	return pi, nil
}

// podRequests sums the containers' requests (limits stand in for unset
// requests) and takes the larger of that and each init container's.
func podRequests(spec *corev1.PodSpec) (req, nonZero Resources) {
	one := func(c corev1.Container) (cpu, mem int64) {
		get := func(name corev1.ResourceName) *resource.Quantity {
			if q, ok := c.Resources.Requests[name]; ok {
				return &q
			}
			if q, ok := c.Resources.Limits[name]; ok {
				return &q
			}
			return nil
		}
		if q := get(corev1.ResourceCPU); q != nil {
			cpu = q.MilliValue()
		}
		if q := get(corev1.ResourceMemory); q != nil {
			mem = q.Value()
		}
		return cpu, mem
	}
	for _, c := range spec.Containers {
		cpu, mem := one(c)
		req.MilliCPU += cpu
		req.Memory += mem
		nonZero.MilliCPU += orDefault(cpu, defaultMilliCPU)
		nonZero.Memory += orDefault(mem, defaultMemory)
	}
	for _, c := range spec.InitContainers {
		cpu, mem := one(c)
		req.MilliCPU = max(req.MilliCPU, cpu)
		req.Memory = max(req.Memory, mem)
	}
	req.Pods, nonZero.Pods = 1, 1
	return req, nonZero
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

// convert decodes a JSON object into a typed struct.
func convert(o api.Object, into any) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
