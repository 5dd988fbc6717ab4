package printers

import (
	"sort"
	"strings"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

var nodeColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Status", "string", "The status of the node"),
	column("Roles", "string", "The roles of the node"),
	ageColumn,
	column("Version", "string", "Kubelet Version reported by the node."),
	wide("Internal-IP", "string", descNodeAddresses),
	wide("External-IP", "string", descNodeAddresses),
	wide("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
	wide("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
	wide("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
}

const descNodeAddresses = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP)."

const (
	// labelNodeRolePrefix marks a role as node-role.kubernetes.io/<role>.
	labelNodeRolePrefix = "node-role.kubernetes.io/"
	// nodeLabelRole is the legacy kubernetes.io/role=<role> label.
	nodeLabelRole = "kubernetes.io/role"
)

// nodeRow is kube's printNode.
func nodeRow(o api.Object, now time.Time) []any {
	// Only the Ready condition counts; the last one of that type wins.
	var status []string
	for _, c := range objects(api.NestedSlice(o, "status", "conditions")) {
		if api.NestedString(c, "type") != "Ready" {
			continue
		}
		if api.NestedString(c, "status") == "True" {
			status = []string{"Ready"}
		} else {
			status = []string{"NotReady"}
		}
	}
	if len(status) == 0 {
		status = append(status, "Unknown")
	}
	if boolean(o, "spec", "unschedulable") {
		status = append(status, "SchedulingDisabled")
	}

	return []any{
		o.Name(),
		strings.Join(status, ","),
		nodeRoles(o),
		age(o, now),
		api.NestedString(o, "status", "nodeInfo", "kubeletVersion"),
		nodeAddress(o, "InternalIP"),
		nodeAddress(o, "ExternalIP"),
		stringOr(o, "<unknown>", "status", "nodeInfo", "osImage"),
		stringOr(o, "<unknown>", "status", "nodeInfo", "kernelVersion"),
		stringOr(o, "<unknown>", "status", "nodeInfo", "containerRuntimeVersion"),
	}
}

// nodeRoles lists the roles named by node-role.kubernetes.io/<role> and
// kubernetes.io/role=<role> labels, sorted and comma-separated, or "<none>".
func nodeRoles(o api.Object) string {
	set := map[string]bool{}
	for k, v := range o.Labels() {
		switch {
		case strings.HasPrefix(k, labelNodeRolePrefix):
			if role := strings.TrimPrefix(k, labelNodeRolePrefix); role != "" {
				set[role] = true
			}
		case k == nodeLabelRole && v != "":
			set[v] = true
		}
	}
	roles := make([]string, 0, len(set))
	for r := range set {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return orNone(strings.Join(roles, ","))
}

// nodeAddress is the first status.addresses entry of type typ, or "<none>".
func nodeAddress(o api.Object, typ string) string {
	for _, a := range objects(api.NestedSlice(o, "status", "addresses")) {
		if api.NestedString(a, "type") == typ {
			return api.NestedString(a, "address")
		}
	}
	return "<none>"
}
