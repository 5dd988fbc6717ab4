package printers

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/capstan-io/capstan/apiserver/api"
)

var serviceColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Type", "string", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"),
	column("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
	column("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system."),
	column("Port(s)", "string", "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
	ageColumn,
	wide("Selector", "string", "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"),
}

// serviceRow is kube's printService. spec.clusterIP stands in when
// spec.clusterIPs is missing; type and protocol default as on create.
func serviceRow(o api.Object, now time.Time) []any {
	clusterIP := api.NestedString(o, "spec", "clusterIP")
	if ips := strs(api.NestedSlice(o, "spec", "clusterIPs")); len(ips) > 0 {
		clusterIP = ips[0]
	}
	return []any{
		o.Name(),
		stringOr(o, "ClusterIP", "spec", "type"),
		orNone(clusterIP),
		serviceExternalIP(o),
		orNone(servicePorts(o)),
		age(o, now),
		labels.FormatLabels(stringMap(api.NestedMap(o, "spec", "selector"))),
	}
}

// serviceExternalIP is kube's getServiceExternalIP with wide output, which is
// what the server always renders.
func serviceExternalIP(o api.Object) string {
	externalIPs := strs(api.NestedSlice(o, "spec", "externalIPs"))
	switch stringOr(o, "ClusterIP", "spec", "type") {
	case "ClusterIP", "NodePort":
		if len(externalIPs) > 0 {
			return strings.Join(externalIPs, ",")
		}
		return "<none>"
	case "LoadBalancer":
		lbIPs := loadBalancerIngress(o)
		if len(externalIPs) > 0 {
			return strings.Join(append(lbIPs, externalIPs...), ",")
		}
		if len(lbIPs) > 0 {
			return strings.Join(lbIPs, ",")
		}
		return "<pending>"
	case "ExternalName":
		return api.NestedString(o, "spec", "externalName")
	}
	return "<unknown>"
}

// loadBalancerIngress lists the distinct IPs (or else hostnames) of
// status.loadBalancer.ingress. Kube keeps them in an unordered set; this keeps
// the first-seen order so the cell is stable.
func loadBalancerIngress(o api.Object) []string {
	var out []string
	seen := map[string]bool{}
	for _, in := range objects(api.NestedSlice(o, "status", "loadBalancer", "ingress")) {
		v := stringOr(in, api.NestedString(in, "hostname"), "ip")
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// servicePorts is kube's makePortString: "80/TCP,443:30443/TCP".
func servicePorts(o api.Object) string {
	var pieces []string
	for _, p := range objects(api.NestedSlice(o, "spec", "ports")) {
		port, protocol := api.Int64(p["port"]), stringOr(p, "TCP", "protocol")
		if nodePort := api.Int64(p["nodePort"]); nodePort > 0 {
			pieces = append(pieces, fmt.Sprintf("%d:%d/%s", port, nodePort, protocol))
		} else {
			pieces = append(pieces, fmt.Sprintf("%d/%s", port, protocol))
		}
	}
	return strings.Join(pieces, ",")
}

var endpointsColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Endpoints", "string", "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."),
	ageColumn,
}

func endpointsRow(o api.Object, now time.Time) []any {
	return []any{o.Name(), formatEndpoints(o), age(o, now)}
}

// maxEndpoints is how many ready addresses the Endpoints cell lists before
// summarizing the rest as "+ N more...".
const maxEndpoints = 3

// formatEndpoints is kube's formatEndpoints for all ports: up to three
// "ip:port" pairs (bare IPs for a subset without ports), then "+ N more...".
// Only ready addresses are shown; "<none>" when there are no subsets.
func formatEndpoints(o api.Object) string {
	subsets := objects(api.NestedSlice(o, "subsets"))
	if len(subsets) == 0 {
		return "<none>"
	}
	var list []string
	more := false
	count := 0
	add := func(s string) {
		if len(list) == maxEndpoints {
			more = true
			return
		}
		list = append(list, s)
	}
	for _, ss := range subsets {
		addrs := objects(api.NestedSlice(ss, "addresses"))
		ports := objects(api.NestedSlice(ss, "ports"))
		if len(ports) == 0 {
			// A headless service may have no ports.
			count += len(addrs)
			for _, a := range addrs {
				add(api.NestedString(a, "ip"))
			}
			continue
		}
		for _, p := range ports {
			count += len(addrs)
			port := strconv.FormatInt(api.Int64(p["port"]), 10)
			for _, a := range addrs {
				add(net.JoinHostPort(api.NestedString(a, "ip"), port))
			}
		}
	}
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-maxEndpoints)
	}
	return ret
}
