package printers

import "testing"

func service(name, spec, status string) string {
	return `{"kind":"Service","metadata":{"name":"` + name + `","namespace":"default","creationTimestamp":"2025-01-14T12:00:00Z"},"spec":` + spec + `,"status":` + status + `}`
}

func TestServiceRow(t *testing.T) {
	t.Parallel()
	runRows(t, "Service", []rowCase{
		{"cluster ip", service("web", `{"type":"ClusterIP","clusterIP":"10.96.12.34","clusterIPs":["10.96.12.34"],"selector":{"tier":"frontend","app":"web"},`+
			`"ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"},{"name":"dns","port":53,"protocol":"UDP"}]}`, `{}`),
			[]any{"web", "ClusterIP", "10.96.12.34", "<none>", "80/TCP,53/UDP", "24h", "app=web,tier=frontend"}},
		{"defaults from a bare spec", service("bare", `{"clusterIP":"10.96.0.20","ports":[{"port":8080}]}`, `{}`),
			[]any{"bare", "ClusterIP", "10.96.0.20", "<none>", "8080/TCP", "24h", "<none>"}},
		{"cluster ip with external ips", service("ext", `{"type":"ClusterIP","clusterIPs":["10.96.0.21"],"externalIPs":["198.51.100.1","198.51.100.2"],"ports":[{"port":80,"protocol":"TCP"}]}`, `{}`),
			[]any{"ext", "ClusterIP", "10.96.0.21", "198.51.100.1,198.51.100.2", "80/TCP", "24h", "<none>"}},
		{"node port", service("np", `{"type":"NodePort","clusterIPs":["10.96.0.22"],"selector":{"app":"np"},`+
			`"ports":[{"port":80,"nodePort":30080,"protocol":"TCP"},{"port":443,"nodePort":30443,"protocol":"TCP"}]}`, `{}`),
			[]any{"np", "NodePort", "10.96.0.22", "<none>", "80:30080/TCP,443:30443/TCP", "24h", "app=np"}},
		{"load balancer pending", service("lb", `{"type":"LoadBalancer","clusterIPs":["10.96.0.23"],"ports":[{"port":443,"nodePort":31443,"protocol":"TCP"}]}`, `{"loadBalancer":{}}`),
			[]any{"lb", "LoadBalancer", "10.96.0.23", "<pending>", "443:31443/TCP", "24h", "<none>"}},
		{"load balancer provisioned", service("lb2", `{"type":"LoadBalancer","clusterIPs":["10.96.0.24"],"externalIPs":["198.51.100.9"],"ports":[{"port":443,"nodePort":31444,"protocol":"TCP"}]}`,
			`{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"},{"hostname":"lb.example.com"},{"ip":"203.0.113.7"}]}}`),
			[]any{"lb2", "LoadBalancer", "10.96.0.24", "203.0.113.7,lb.example.com,198.51.100.9", "443:31444/TCP", "24h", "<none>"}},
		{"external name", service("db", `{"type":"ExternalName","externalName":"db.example.com"}`, `{}`),
			[]any{"db", "ExternalName", "<none>", "db.example.com", "<none>", "24h", "<none>"}},
		{"headless", service("peers", `{"type":"ClusterIP","clusterIP":"None","clusterIPs":["None"],"selector":{"app":"db"}}`, `{}`),
			[]any{"peers", "ClusterIP", "None", "<none>", "<none>", "24h", "app=db"}},
	})
}

func endpoints(subsets string) string {
	return `{"kind":"Endpoints","metadata":{"name":"web","namespace":"default","creationTimestamp":"2025-01-15T11:57:00Z"},"subsets":` + subsets + `}`
}

func TestEndpointsRow(t *testing.T) {
	t.Parallel()
	row := func(cell string) []any { return []any{"web", cell, "3m"} }
	runRows(t, "Endpoints", []rowCase{
		{"no subsets", `{"kind":"Endpoints","metadata":{"name":"web","namespace":"default","creationTimestamp":"2025-01-15T11:57:00Z"}}`, row("<none>")},
		{"two addresses", endpoints(`[{"addresses":[{"ip":"10.244.1.5"},{"ip":"10.244.2.7"}],"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}]`),
			row("10.244.1.5:8080,10.244.2.7:8080")},
		{"not ready addresses are left out", endpoints(`[{"addresses":[{"ip":"10.244.1.5"}],"notReadyAddresses":[{"ip":"10.244.2.7"}],"ports":[{"port":80}]}]`),
			row("10.244.1.5:80")},
		{"truncated", endpoints(`[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"},{"ip":"10.0.0.3"},{"ip":"10.0.0.4"},{"ip":"10.0.0.5"}],"ports":[{"port":80}]}]`),
			row("10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more...")},
		{"ports times addresses", endpoints(`[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"ports":[{"name":"http","port":80},{"name":"https","port":443}]}]`),
			row("10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...")},
		{"exactly three", endpoints(`[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]},{"addresses":[{"ip":"10.0.0.2"},{"ip":"10.0.0.3"}],"ports":[{"port":81}]}]`),
			row("10.0.0.1:80,10.0.0.2:81,10.0.0.3:81")},
		{"headless without ports", endpoints(`[{"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"},{"ip":"10.0.0.3"},{"ip":"10.0.0.4"}]}]`),
			row("10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...")},
		{"ipv6", endpoints(`[{"addresses":[{"ip":"fd00::1"}],"ports":[{"port":80}]}]`), row("[fd00::1]:80")},
		{"subset with only not ready addresses", endpoints(`[{"notReadyAddresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]`), row("")},
	})
}
