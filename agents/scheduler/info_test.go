package scheduler

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/apiserver/api"
)

func decode(t *testing.T, s string) api.Object {
	t.Helper()
	o, err := api.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestParsePod(t *testing.T) {
	t.Parallel()
	p, err := ParsePod(decode(t, `{"metadata":{"name":"p","namespace":"ns","uid":"u",
		"ownerReferences":[{"uid":"first"},{"uid":"ctrl","controller":true}]},
	  "spec":{"schedulerName":"s","nodeSelector":{"a":"b"},
		"containers":[
		  {"name":"a","resources":{"requests":{"cpu":"250m","memory":"64Mi"}},"ports":[{"containerPort":80,"hostPort":8080},{"containerPort":81}]},
		  {"name":"b","resources":{"limits":{"cpu":1,"memory":"1Gi"}},"ports":[{"hostPort":53,"protocol":"UDP","hostIP":"10.0.0.1"}]},
		  {"name":"c"}],
		"initContainers":[{"name":"i","resources":{"requests":{"cpu":"2"}}}],
		"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],
		"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"In","values":["a"]}]}]}}}},
	  "status":{"phase":"Succeeded"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"key", p.Key, "ns/p"},
		{"owner prefers the controller", p.Owner, "ctrl"},
		{"requests: max(sum of containers, init container) cpu; limits stand in", p.Requests, Resources{MilliCPU: 2000, Memory: 64<<20 + 1<<30, Pods: 1}},
		{"non-zero defaults for the container that requests nothing", p.NonZero, Resources{MilliCPU: 250 + 1000 + defaultMilliCPU, Memory: 64<<20 + 1<<30 + defaultMemory, Pods: 1}},
		{"host ports", p.Ports, []HostPort{{"TCP", "", 8080}, {"UDP", "10.0.0.1", 53}}},
		{"nodeSelector", p.NodeSelector, map[string]string{"a": "b"}},
		{"tolerations", p.Tolerations, []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}},
		{"affinity", p.Affinity.NodeSelectorTerms[0].MatchExpressions[0].Key, "z"},
		{"terminal", p.Terminal, true},
		{"schedulerName", p.SchedulerName, "s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := json.Marshal(tc.got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Fatalf("got %s, want %s", g, w)
			}
		})
	}
	if _, err := ParsePod(decode(t, `{"metadata":{"name":"p"},"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}`)); err == nil {
		t.Fatal("bad quantity: want error")
	}
}
