package printers

import "testing"

func TestEventRow(t *testing.T) {
	t.Parallel()
	runRows(t, "Event", []rowCase{
		{"core event", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"web-0.181a2b3c4d5e6f70","namespace":"default","creationTimestamp":"2025-01-15T11:00:00Z"},` +
			`"involvedObject":{"kind":"Pod","namespace":"default","name":"web-0","uid":"u1","apiVersion":"v1","fieldPath":"spec.containers{app}"},` +
			`"reason":"BackOff","message":"Back-off restarting failed container app in pod web-0_default(u1)\n","type":"Warning","count":5,` +
			`"firstTimestamp":"2025-01-15T11:00:00Z","lastTimestamp":"2025-01-15T11:58:00Z","source":{"component":"kubelet","host":"node-1"}}`,
			[]any{"2m", "Warning", "BackOff", "pod/web-0", "spec.containers{app}", "kubelet, node-1",
				"Back-off restarting failed container app in pod web-0_default(u1)", "60m", int64(5), "web-0.181a2b3c4d5e6f70"}},
		{"single occurrence", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"web.1","namespace":"default"},` +
			`"involvedObject":{"kind":"Deployment","namespace":"default","name":"web"},"reason":"ScalingReplicaSet","message":"Scaled up replica set web-7d9f8c6b5 to 3",` +
			`"type":"Normal","firstTimestamp":"2025-01-15T11:59:30Z","source":{"component":"deployment-controller"}}`,
			[]any{"30s", "Normal", "ScalingReplicaSet", "deployment/web", "", "deployment-controller",
				"Scaled up replica set web-7d9f8c6b5 to 3", "30s", int64(1), "web.1"}},
		{"events.k8s.io style with series", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"node-1.2","namespace":"default"},` +
			`"involvedObject":{"kind":"Node","name":"node-1"},"reason":"NodeNotReady","message":"Node node-1 status is now: NodeNotReady","type":"Normal",` +
			`"eventTime":"2025-01-15T10:00:00.000000Z","series":{"count":4,"lastObservedTime":"2025-01-15T11:50:00.123456Z"},` +
			`"reportingComponent":"node-controller","reportingController":"node-controller","reportingInstance":"capstan-0"}`,
			[]any{"9m59s", "Normal", "NodeNotReady", "node/node-1", "", "node-controller, capstan-0",
				"Node node-1 status is now: NodeNotReady", "120m", int64(4), "node-1.2"}},
		{"object without a name and no times", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"cluster.3","namespace":"default"},` +
			`"involvedObject":{"kind":"Cluster"},"reason":"Started","message":"  started  ","type":"Normal"}`,
			[]any{"<unknown>", "Normal", "Started", "cluster", "", "", "started", "<unknown>", int64(1), "cluster.3"}},
	})
}
