// Package nodeagent is Capstan's node agent (the kubelet's job): it registers
// a Node, renews its Lease in kube-node-lease, reports node conditions, and
// runs the pods bound to the node through a containers.Runtime — real local
// processes by default, or the clearly named fake runtime for scale tests.
//
// Each pod is reconciled level-triggered from the informer cache and what
// the runtime lists, so a restarted agent adopts the containers it started
// and pods keep running (and restarting) while the hub is unreachable; the
// true status is written once it is back.
package nodeagent
