package printers

import "testing"

func TestNodeRow(t *testing.T) {
	t.Parallel()
	const info = `"nodeInfo":{"kubeletVersion":"v1.32.1","osImage":"Ubuntu 24.04.1 LTS","kernelVersion":"6.8.0-51-generic","containerRuntimeVersion":"containerd://1.7.24"}`
	runRows(t, "Node", []rowCase{
		{"ready control plane", `{"kind":"Node","metadata":{"name":"cp-1","creationTimestamp":"2024-11-01T12:00:00Z",` +
			`"labels":{"kubernetes.io/hostname":"cp-1","node-role.kubernetes.io/control-plane":"","node-role.kubernetes.io/etcd":""}},"spec":{},` +
			`"status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True","reason":"KubeletReady"}],` +
			`"addresses":[{"type":"InternalIP","address":"192.168.1.10"},{"type":"ExternalIP","address":"203.0.113.10"},{"type":"Hostname","address":"cp-1"}],` + info + `}}`,
			[]any{"cp-1", "Ready", "control-plane,etcd", "75d", "v1.32.1", "192.168.1.10", "203.0.113.10", "Ubuntu 24.04.1 LTS", "6.8.0-51-generic", "containerd://1.7.24"}},
		{"not ready and cordoned", `{"kind":"Node","metadata":{"name":"worker-2","creationTimestamp":"2025-01-15T06:00:00Z",` +
			`"labels":{"kubernetes.io/role":"worker"}},"spec":{"unschedulable":true},` +
			`"status":{"conditions":[{"type":"Ready","status":"Unknown","reason":"NodeStatusUnknown"}],"addresses":[{"type":"InternalIP","address":"192.168.1.12"}],` + info + `}}`,
			[]any{"worker-2", "NotReady,SchedulingDisabled", "worker", "6h", "v1.32.1", "192.168.1.12", "<none>", "Ubuntu 24.04.1 LTS", "6.8.0-51-generic", "containerd://1.7.24"}},
		{"just registered", `{"kind":"Node","metadata":{"name":"worker-3","creationTimestamp":"2025-01-15T11:59:50Z"}}`,
			[]any{"worker-3", "Unknown", "<none>", "10s", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
		{"cordoned without conditions", `{"kind":"Node","metadata":{"name":"worker-4","creationTimestamp":"2025-01-15T11:00:00Z"},"spec":{"unschedulable":true},"status":{"conditions":[{"type":"DiskPressure","status":"False"}]}}`,
			[]any{"worker-4", "Unknown,SchedulingDisabled", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
	})
}

func TestDeploymentRow(t *testing.T) {
	t.Parallel()
	runRows(t, "Deployment", []rowCase{
		{"rolling out", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","creationTimestamp":"2025-01-15T11:30:00Z"},` +
			`"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","tier":"frontend"}},"template":{"metadata":{"labels":{"app":"web","tier":"frontend"}},` +
			`"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"},{"name":"exporter","image":"nginx/nginx-prometheus-exporter:1.3"}]}}},` +
			`"status":{"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2}}`,
			[]any{"web", "2/3", int64(3), int64(2), "30m", "nginx,exporter", "nginx:1.27,nginx/nginx-prometheus-exporter:1.3", "app=web,tier=frontend"}},
		{"fresh with expressions", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"default","creationTimestamp":"2025-01-15T11:59:59Z"},` +
			`"spec":{"selector":{"matchLabels":{"app":"api"},"matchExpressions":[{"key":"track","operator":"In","values":["stable","canary"]},{"key":"legacy","operator":"DoesNotExist"}]},` +
			`"template":{"spec":{"containers":[{"name":"api","image":"api:v1"}]}}}}`,
			[]any{"api", "0/1", int64(0), int64(0), "1s", "api", "api:v1", "app=api,!legacy,track in (canary,stable)"}},
		{"scaled to zero", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"idle","namespace":"default","creationTimestamp":"2025-01-15T11:00:00Z"},` +
			`"spec":{"replicas":0,"selector":{"matchLabels":{"app":"idle"}},"template":{"spec":{"containers":[{"name":"idle","image":"pause"}]}}},"status":{}}`,
			[]any{"idle", "0/0", int64(0), int64(0), "60m", "idle", "pause", "app=idle"}},
		{"invalid selector", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"bad","namespace":"default","creationTimestamp":"2025-01-15T11:00:00Z"},` +
			`"spec":{"replicas":1,"selector":{"matchExpressions":[{"key":"app","operator":"Near","values":["x"]}]},"template":{"spec":{"containers":[]}}}}`,
			[]any{"bad", "0/1", int64(0), int64(0), "60m", "", "", "<invalid>"}},
	})
}

func TestReplicaSetRow(t *testing.T) {
	t.Parallel()
	runRows(t, "ReplicaSet", []rowCase{
		{"owned by a deployment", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-7d9f8c6b5","namespace":"default","creationTimestamp":"2025-01-15T11:30:00Z",` +
			`"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"1","controller":true}]},` +
			`"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","pod-template-hash":"7d9f8c6b5"}},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}},` +
			`"status":{"replicas":3,"readyReplicas":2,"availableReplicas":2}}`,
			[]any{"web-7d9f8c6b5", int64(3), int64(3), int64(2), "30m", "nginx", "nginx:1.27", "app=web,pod-template-hash=7d9f8c6b5"}},
		{"defaults and empty selector", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"bare","namespace":"default","creationTimestamp":"2025-01-05T12:00:00Z"},` +
			`"spec":{"selector":{},"template":{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}}}`,
			[]any{"bare", int64(1), int64(0), int64(0), "10d", "a,b", "a:1,b:1", "<none>"}},
		{"invalid selector", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"bad","namespace":"default","creationTimestamp":"2025-01-15T11:00:00Z"},` +
			`"spec":{"replicas":2,"selector":{"matchLabels":{"bad key!":"x"}}},"status":{"replicas":1,"readyReplicas":1}}`,
			[]any{"bad", int64(2), int64(1), int64(1), "60m", "", "", "<error>"}},
	})
}
