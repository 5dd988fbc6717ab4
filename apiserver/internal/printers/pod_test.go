package printers

import "testing"

// pod wraps spec and status JSON in a pod created five days before now.
func pod(extraMeta, spec, status string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"default",` +
		`"creationTimestamp":"2025-01-10T12:00:00Z"` + extraMeta + `},"spec":` + spec + `,"status":` + status + `}`
}

const (
	oneContainer  = `{"nodeName":"node-1","containers":[{"name":"app","image":"nginx:1.27"}]}`
	twoContainers = `{"nodeName":"node-1","containers":[{"name":"app","image":"nginx:1.27"},{"name":"log","image":"busybox"}]}`
	withInit      = `{"nodeName":"node-1","initContainers":[{"name":"migrate","image":"migrate:v2"}],"containers":[{"name":"app","image":"nginx:1.27"}]}`
	withSidecar   = `{"nodeName":"node-1","initContainers":[{"name":"proxy","image":"envoy","restartPolicy":"Always"}],"containers":[{"name":"app","image":"nginx:1.27"}]}`
	running       = `{"name":"app","ready":true,"restartCount":0,"started":true,"state":{"running":{"startedAt":"2025-01-10T12:00:05Z"}}}`
	podIPs        = `"podIP":"10.244.1.5","podIPs":[{"ip":"10.244.1.5"},{"ip":"fd00::5"}]`
)

func TestPodRow(t *testing.T) {
	t.Parallel()
	wideCells := []any{"10.244.1.5", "node-1", "<none>", "<none>"}
	row := func(ready, status, restarts string, wide ...any) []any {
		if len(wide) == 0 {
			wide = wideCells
		}
		return append([]any{"web-0", ready, status, restarts, "5d"}, wide...)
	}
	runRows(t, "Pod", []rowCase{
		{"running", pod("", twoContainers, `{"phase":"Running",`+podIPs+`,"conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[`+
			running+`,{"name":"log","ready":true,"restartCount":0,"state":{"running":{}}}]}`),
			row("2/2", "Running", "0")},
		{"pending unscheduled", pod("", `{"containers":[{"name":"app","image":"nginx"}]}`,
			`{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}`),
			row("0/1", "Pending", "0", "<none>", "<none>", "<none>", "<none>")},
		{"nominated node", pod("", `{"containers":[{"name":"app","image":"nginx"}]}`, `{"phase":"Pending","nominatedNodeName":"node-2"}`),
			row("0/1", "Pending", "0", "<none>", "<none>", "node-2", "<none>")},
		{"scheduling gated", pod("", `{"schedulingGates":[{"name":"example.com/quota"}],"containers":[{"name":"app","image":"nginx"}]}`,
			`{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}`),
			row("0/1", "SchedulingGated", "0", "<none>", "<none>", "<none>", "<none>")},
		{"container creating", pod("", oneContainer, `{"phase":"Pending","podIP":"10.244.1.5","containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"waiting":{"reason":"ContainerCreating"}}}]}`),
			row("0/1", "ContainerCreating", "0")},
		{"crash loop", pod("", oneContainer, `{"phase":"Running",`+podIPs+`,"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off 40s"}},`+
			`"lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"2025-01-15T11:55:00Z"}}}]}`),
			row("0/1", "CrashLoopBackOff", "3 (5m ago)")},
		{"restarts use the latest finish", pod("", twoContainers, `{"phase":"Running",`+podIPs+`,"conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[`+
			`{"name":"app","ready":true,"restartCount":2,"state":{"running":{}},"lastState":{"terminated":{"exitCode":137,"finishedAt":"2025-01-15T09:00:00Z"}}},`+
			`{"name":"log","ready":true,"restartCount":1,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2025-01-15T11:58:30Z"}}}]}`),
			row("2/2", "Running", "3 (90s ago)")},
		{"restarts without a finish time", pod("", oneContainer, `{"phase":"Running",`+podIPs+`,"containerStatuses":[`+
			`{"name":"app","ready":true,"restartCount":4,"state":{"running":{}}}]}`),
			row("1/1", "Running", "4")},
		{"completed", pod("", oneContainer, `{"phase":"Succeeded",`+podIPs+`,"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed","finishedAt":"2025-01-10T12:01:00Z"}}}]}`),
			row("0/1", "Completed", "0")},
		{"failed with exit code", pod("", oneContainer, `{"phase":"Failed",`+podIPs+`,"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":2}}}]}`),
			row("0/1", "ExitCode:2", "0")},
		{"killed by signal", pod("", oneContainer, `{"phase":"Failed",`+podIPs+`,"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"signal":9}}}]}`),
			row("0/1", "Signal:9", "0")},
		{"evicted", pod("", oneContainer, `{"phase":"Failed","reason":"Evicted","message":"low on memory"}`),
			row("0/1", "Evicted", "0", "<none>", "node-1", "<none>", "<none>")},
		{"completed sibling of a running ready container", pod("", twoContainers, `{"phase":"Running",`+podIPs+`,"conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}},`+
			`{"name":"log","ready":true,"restartCount":0,"state":{"running":{}}}]}`),
			row("1/2", "Running", "0")},
		{"completed sibling of a running pod that is not ready", pod("", twoContainers, `{"phase":"Running",`+podIPs+`,"conditions":[{"type":"Ready","status":"False"}],"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}},`+
			`{"name":"log","ready":true,"restartCount":0,"state":{"running":{}}}]}`),
			row("1/2", "NotReady", "0")},
		{"terminating", pod(`,"deletionTimestamp":"2025-01-15T11:59:30Z","deletionGracePeriodSeconds":30`, oneContainer,
			`{"phase":"Running",`+podIPs+`,"containerStatuses":[`+running+`]}`),
			row("1/1", "Terminating", "0")},
		{"deleted after success stays completed", pod(`,"deletionTimestamp":"2025-01-15T11:59:30Z"`, oneContainer, `{"phase":"Succeeded",`+podIPs+`,"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}`),
			row("0/1", "Completed", "0")},
		{"node lost while deleting", pod(`,"deletionTimestamp":"2025-01-15T11:00:00Z"`, oneContainer, `{"phase":"Running","reason":"NodeLost",`+podIPs+`,"containerStatuses":[`+running+`]}`),
			row("1/1", "Unknown", "0")},
		{"init running", pod("", withInit, `{"phase":"Pending",`+podIPs+`,"conditions":[{"type":"Initialized","status":"False"}],"initContainerStatuses":[`+
			`{"name":"migrate","ready":false,"restartCount":0,"state":{"running":{"startedAt":"2025-01-15T11:59:00Z"}}}],"containerStatuses":[`+
			`{"name":"app","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}`),
			row("0/1", "Init:0/1", "0")},
		{"init crash loop", pod("", withInit, `{"phase":"Pending",`+podIPs+`,"initContainerStatuses":[`+
			`{"name":"migrate","ready":false,"restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"2025-01-15T11:58:30Z"}}}],`+
			`"containerStatuses":[{"name":"app","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]}`),
			row("0/1", "Init:CrashLoopBackOff", "2 (90s ago)")},
		{"init error", pod("", withInit, `{"phase":"Pending",`+podIPs+`,"initContainerStatuses":[`+
			`{"name":"migrate","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}`),
			row("0/1", "Init:Error", "0")},
		{"init exit code without reason", pod("", withInit, `{"phase":"Pending",`+podIPs+`,"initContainerStatuses":[`+
			`{"name":"migrate","ready":false,"restartCount":0,"state":{"terminated":{"exitCode":3}}}]}`),
			row("0/1", "Init:ExitCode:3", "0")},
		{"init done", pod("", withInit, `{"phase":"Running",`+podIPs+`,"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"}],"initContainerStatuses":[`+
			`{"name":"migrate","ready":true,"restartCount":1,"state":{"terminated":{"exitCode":0,"reason":"Completed"}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2025-01-10T12:00:30Z"}}}],`+
			`"containerStatuses":[`+running+`]}`),
			row("1/1", "Running", "0")},
		{"sidecar", pod("", withSidecar, `{"phase":"Running",`+podIPs+`,"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"}],"initContainerStatuses":[`+
			`{"name":"proxy","ready":true,"started":true,"restartCount":1,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2025-01-15T10:00:00Z"}}}],`+
			`"containerStatuses":[`+running+`]}`),
			row("2/2", "Running", "1 (120m ago)")},
		{"readiness gates", pod("", `{"nodeName":"node-1","readinessGates":[{"conditionType":"example.com/lb"},{"conditionType":"example.com/dns"}],"containers":[{"name":"app","image":"nginx"}]}`,
			`{"phase":"Running",`+podIPs+`,"conditions":[{"type":"example.com/lb","status":"True"},{"type":"example.com/dns","status":"False"},{"type":"Ready","status":"False"}],"containerStatuses":[`+running+`]}`),
			row("1/1", "Running", "0", "10.244.1.5", "node-1", "<none>", "1/2")},
		{"no creation timestamp", `{"kind":"Pod","metadata":{"name":"bare"},"spec":{"containers":[{"name":"app"}]}}`,
			[]any{"bare", "0/1", "", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"}},
	})
}
