package authz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/auth"
)

// NodeRestriction confines a node (user system:node:<name> in system:nodes)
// to its own Node and Lease, the pods bound to it, and the secrets and config
// maps those pods use. It decides every request from a node; other users get
// NoOpinion. Its pod graph is fed from the server's pod watch.
type NodeRestriction struct {
	mu   sync.RWMutex
	pods map[string]podRefs // by namespace/name
}

// podRefs is what the graph keeps of one pod.
type podRefs struct {
	node                string
	secrets, configMaps map[string]bool
}

var _ Authorizer = (*NodeRestriction)(nil)

// NewNodeRestriction returns an authorizer with an empty pod graph.
func NewNodeRestriction() *NodeRestriction { return &NodeRestriction{pods: map[string]podRefs{}} }

// PutPod records a pod from its JSON.
func (n *NodeRestriction) PutPod(raw []byte) error {
	var p corev1.Pod
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("authz: decoding pod: %w", err)
	}
	refs := podRefs{node: p.Spec.NodeName, secrets: map[string]bool{}, configMaps: map[string]bool{}}
	for _, s := range p.Spec.ImagePullSecrets {
		refs.secrets[s.Name] = true
	}
	for _, v := range p.Spec.Volumes {
		if v.Secret != nil {
			refs.secrets[v.Secret.SecretName] = true
		}
		if v.ConfigMap != nil {
			refs.configMaps[v.ConfigMap.Name] = true
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.Secret != nil {
					refs.secrets[src.Secret.Name] = true
				}
				if src.ConfigMap != nil {
					refs.configMaps[src.ConfigMap.Name] = true
				}
			}
		}
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			for _, ef := range c.EnvFrom {
				if ef.SecretRef != nil {
					refs.secrets[ef.SecretRef.Name] = true
				}
				if ef.ConfigMapRef != nil {
					refs.configMaps[ef.ConfigMapRef.Name] = true
				}
			}
			for _, e := range c.Env {
				if e.ValueFrom == nil {
					continue
				}
				if e.ValueFrom.SecretKeyRef != nil {
					refs.secrets[e.ValueFrom.SecretKeyRef.Name] = true
				}
				if e.ValueFrom.ConfigMapKeyRef != nil {
					refs.configMaps[e.ValueFrom.ConfigMapKeyRef.Name] = true
				}
			}
		}
	}
	n.mu.Lock()
	n.pods[p.Namespace+"/"+p.Name] = refs
	n.mu.Unlock()
	return nil
}

// DeletePod forgets a pod.
func (n *NodeRestriction) DeletePod(namespace, name string) {
	n.mu.Lock()
	delete(n.pods, namespace+"/"+name)
	n.mu.Unlock()
}

// Reset forgets every pod, before a re-list.
func (n *NodeRestriction) Reset() {
	n.mu.Lock()
	clear(n.pods)
	n.mu.Unlock()
}

// Authorize decides every request of a node.
func (n *NodeRestriction) Authorize(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
	node, ok := strings.CutPrefix(a.User.Name, auth.NodePrefix)
	if !ok || node == "" || !a.User.InGroup(auth.GroupNodes) {
		return auth.NoOpinion, "", nil
	}
	if !a.ResourceRequest {
		return auth.NoOpinion, "", nil // discovery and health come from RBAC
	}
	if a.APIGroup == "authentication.k8s.io" || a.APIGroup == "authorization.k8s.io" {
		// Reviews about the caller itself (whoami, can-i): RBAC's
		// system:basic-user decides, as for every authenticated user.
		return auth.NoOpinion, "", nil
	}
	if n.allowed(node, a) {
		return auth.Allow, "", nil
	}
	return auth.Deny, fmt.Sprintf("node %q is not allowed this request", node), nil
}

func (n *NodeRestriction) allowed(node string, a auth.Attributes) bool {
	read := a.Verb == "get" || a.Verb == "list" || a.Verb == "watch"
	switch a.APIGroup + "/" + a.Resource {
	case "/nodes":
		switch {
		case a.Subresource == "" && read:
			return true
		case a.Verb == "create" && a.Subresource == "":
			return true // the name is checked at admission: the body names the node
		case a.Name == node && (a.Verb == "update" || a.Verb == "patch"):
			return a.Subresource == "" || a.Subresource == "status"
		}
		return false
	case "coordination.k8s.io/leases":
		if a.Namespace != "kube-node-lease" || a.Subresource != "" {
			return false
		}
		return a.Verb == "create" || (a.Name == node && a.Verb != "list" && a.Verb != "watch" && a.Verb != "deletecollection")
	case "/pods":
		if a.Verb == "list" || a.Verb == "watch" {
			return a.Subresource == ""
		}
		if a.Verb == "create" && a.Subresource == "" {
			return true // mirror pods
		}
		if !n.podOnNode(a.Namespace, a.Name, node) {
			return false
		}
		switch a.Subresource {
		case "":
			return a.Verb == "get" || a.Verb == "delete"
		case "status":
			return a.Verb == "get" || a.Verb == "update" || a.Verb == "patch"
		}
		return false
	case "/secrets", "/configmaps":
		return a.Verb == "get" && a.Subresource == "" && n.referenced(node, a.Namespace, a.Resource, a.Name)
	case "/events", "events.k8s.io/events":
		return a.Verb == "create" || a.Verb == "update" || a.Verb == "patch"
	case "/services", "/endpoints":
		return read
	}
	return false
}

func (n *NodeRestriction) podOnNode(namespace, name, node string) bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	p, ok := n.pods[namespace+"/"+name]
	return ok && p.node == node
}

// referenced reports whether a pod bound to node in namespace uses the secret or config map name.
func (n *NodeRestriction) referenced(node, namespace, resource, name string) bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	prefix := namespace + "/"
	for key, p := range n.pods {
		if p.node != node || !strings.HasPrefix(key, prefix) {
			continue
		}
		if (resource == "secrets" && p.secrets[name]) || (resource == "configmaps" && p.configMaps[name]) {
			return true
		}
	}
	return false
}

// ErrNodeWrite marks a node's write of an object that is not its own.
var ErrNodeWrite = errors.New("authz: node may not write this object")

// AdmitNodeWrite checks the object a node writes, which the path alone does
// not show: a node may create or change only the Node named after it, and
// create only (mirror) pods bound to it. Other users pass.
func AdmitNodeWrite(u auth.User, resource, name, nodeName string) error {
	node, ok := strings.CutPrefix(u.Name, auth.NodePrefix)
	if !ok || !u.InGroup(auth.GroupNodes) {
		return nil
	}
	switch {
	case resource == "nodes" && name != node:
		return fmt.Errorf("%w: node %q may not modify node %q", ErrNodeWrite, node, name)
	case resource == "pods" && nodeName != node:
		return fmt.Errorf("%w: node %q may only create pods bound to itself", ErrNodeWrite, node)
	}
	return nil
}
