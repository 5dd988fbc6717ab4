package printers

import (
	"reflect"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

// now is the fixed clock every test renders against.
var now = time.Date(2025, 1, 15, 12, 0, 0, 0, time.UTC)

// rowCase is one object and the full row expected for it.
type rowCase struct {
	name string
	obj  string // JSON
	want []any
}

func decode(t *testing.T, s string) api.Object {
	t.Helper()
	o, err := api.Decode([]byte(s))
	if err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return o
}

// runRows checks every cell of Row(kind, ...) for each case, and that the
// row is as long as the kind's columns.
func runRows(t *testing.T, kind string, cases []rowCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Row(kind, decode(t, tc.obj), now)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Row(%s) =\n  %#v\nwant\n  %#v", kind, got, tc.want)
			}
			if n := len(Columns(kind)); len(got) != n {
				t.Errorf("Row(%s) has %d cells, Columns has %d", kind, len(got), n)
			}
		})
	}
}

func TestColumns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind       string
		names      []string
		priorities []int32
	}{
		{"Pod", []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}, []int32{0, 0, 0, 0, 0, 1, 1, 1, 1}},
		{"Node", []string{"Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"}, []int32{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}},
		{"Deployment", []string{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"}, []int32{0, 0, 0, 0, 0, 1, 1, 1}},
		{"ReplicaSet", []string{"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"}, []int32{0, 0, 0, 0, 0, 1, 1, 1}},
		{"Namespace", []string{"Name", "Status", "Age"}, []int32{0, 0, 0}},
		{"ConfigMap", []string{"Name", "Data", "Age"}, []int32{0, 0, 0}},
		{"Secret", []string{"Name", "Type", "Data", "Age"}, []int32{0, 0, 0, 0}},
		{"Service", []string{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"}, []int32{0, 0, 0, 0, 0, 0, 1}},
		{"Endpoints", []string{"Name", "Endpoints", "Age"}, []int32{0, 0, 0}},
		{"Event", []string{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"}, []int32{0, 0, 0, 0, 1, 1, 0, 1, 1, 1}},
		{"ServiceAccount", []string{"Name", "Secrets", "Age"}, []int32{0, 0, 0}},
		{"Lease", []string{"Name", "Holder", "Age"}, []int32{0, 0, 0}},
		{"Widget", []string{"Name", "Age"}, []int32{0, 0}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			cols := Columns(tc.kind)
			var names []string
			var prio []int32
			for _, c := range cols {
				names = append(names, c.Name)
				prio = append(prio, c.Priority)
				if c.Type == "" || c.Description == "" {
					t.Errorf("column %q lacks a type or description: %+v", c.Name, c)
				}
				if wantFormat := map[bool]string{true: "name"}[c.Name == "Name"]; c.Format != wantFormat {
					t.Errorf("column %q has format %q, want %q", c.Name, c.Format, wantFormat)
				}
			}
			if !reflect.DeepEqual(names, tc.names) {
				t.Errorf("names = %q, want %q", names, tc.names)
			}
			if !reflect.DeepEqual(prio, tc.priorities) {
				t.Errorf("priorities = %v, want %v", prio, tc.priorities)
			}
		})
	}
}

func TestColumnsReturnsACopy(t *testing.T) {
	t.Parallel()
	Columns("Pod")[0].Name = "changed"
	if got := Columns("Pod")[0].Name; got != "Name" {
		t.Fatalf("Columns shares its slice: first column is now %q", got)
	}
}

func TestCoreKinds(t *testing.T) {
	t.Parallel()
	for _, k := range []struct {
		kind  string
		cases []rowCase
	}{
		{"Namespace", []rowCase{
			{"active", `{"kind":"Namespace","metadata":{"name":"default","creationTimestamp":"2024-12-15T12:00:00Z"},"status":{"phase":"Active"}}`,
				[]any{"default", "Active", "31d"}},
			{"terminating", `{"kind":"Namespace","metadata":{"name":"old","creationTimestamp":"2025-01-15T08:30:00Z","deletionTimestamp":"2025-01-15T11:59:00Z"},"status":{"phase":"Terminating"}}`,
				[]any{"old", "Terminating", "3h30m"}},
		}},
		{"ConfigMap", []rowCase{
			{"data and binaryData", `{"kind":"ConfigMap","metadata":{"name":"app-config","namespace":"default","creationTimestamp":"2025-01-15T11:58:30Z"},"data":{"a.conf":"x","b.conf":"y"},"binaryData":{"logo.png":"iVBORw0K"}}`,
				[]any{"app-config", int64(3), "90s"}},
			{"empty", `{"kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt","namespace":"default","creationTimestamp":"2025-01-14T12:00:00Z"}}`,
				[]any{"kube-root-ca.crt", int64(0), "24h"}},
		}},
		{"Secret", []rowCase{
			{"tls", `{"kind":"Secret","metadata":{"name":"web-tls","namespace":"default","creationTimestamp":"2025-01-15T11:00:00Z"},"type":"kubernetes.io/tls","data":{"tls.crt":"Y2VydA==","tls.key":"a2V5"}}`,
				[]any{"web-tls", "kubernetes.io/tls", int64(2), "60m"}},
			{"type defaults to Opaque", `{"kind":"Secret","metadata":{"name":"empty","namespace":"default","creationTimestamp":"2025-01-15T11:55:00Z"}}`,
				[]any{"empty", "Opaque", int64(0), "5m"}},
		}},
		{"ServiceAccount", []rowCase{
			{"with a secret", `{"kind":"ServiceAccount","metadata":{"name":"builder","namespace":"ci","creationTimestamp":"2025-01-15T04:00:00Z"},"secrets":[{"name":"builder-token"}]}`,
				[]any{"builder", int64(1), "8h"}},
			{"default", `{"kind":"ServiceAccount","metadata":{"name":"default","namespace":"ci","creationTimestamp":"2025-01-15T11:59:58Z"}}`,
				[]any{"default", int64(0), "2s"}},
		}},
		{"Lease", []rowCase{
			{"held", `{"kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system","creationTimestamp":"2025-01-13T12:00:00Z"},"spec":{"holderIdentity":"capstan-0_6f1c","leaseDurationSeconds":15}}`,
				[]any{"kube-scheduler", "capstan-0_6f1c", "2d"}},
			{"unheld", `{"kind":"Lease","metadata":{"name":"node-1","namespace":"kube-node-lease"},"spec":{}}`,
				[]any{"node-1", "", "<unknown>"}},
		}},
		{"Widget", []rowCase{
			{"unknown kind", `{"kind":"Widget","metadata":{"name":"w1","creationTimestamp":"2025-01-15T11:51:30Z"},"spec":{"size":3}}`,
				[]any{"w1", "8m30s"}},
		}},
	} {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			runRows(t, k.kind, k.cases)
		})
	}
}
