package e2e

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/e2e/framework"
)

// createLabeled creates ConfigMaps c1..c5: c1-c3 labeled app=demo, c4-c5 app=other.
func createLabeled(t *testing.T, s *framework.Server, ns string) {
	t.Helper()
	for i, name := range []string{"c1", "c2", "c3", "c4", "c5"} {
		app := "demo"
		if i >= 3 {
			app = "other"
		}
		kubectl(t, s, "create", "configmap", name, "-n", ns, "--from-literal=k=v")
		kubectl(t, s, "label", "configmap", name, "-n", ns, "app="+app)
	}
}

// getNames runs kubectl get -o name and returns the names it printed, sorted.
func getNames(t *testing.T, s *framework.Server, args ...string) []string {
	t.Helper()
	var names []string
	for line := range strings.Lines(kubectl(t, s, append(args, "-o", "name")...)) {
		names = append(names, strings.TrimSpace(line))
	}
	slices.Sort(names)
	return names
}

// testKubectlSelectors filters lists with label and field selectors.
func testKubectlSelectors(t *testing.T, s *framework.Server, ns string) {
	createLabeled(t, s, ns)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"label equals", []string{"-l", "app=demo"}, []string{"c1", "c2", "c3"}},
		{"label not equals", []string{"-l", "app,app!=demo"}, []string{"c4", "c5"}},
		{"label set", []string{"-l", "app in (other)"}, []string{"c4", "c5"}},
		{"label no match", []string{"-l", "app=nothing"}, nil},
		{"field name", []string{"--field-selector", "metadata.name=c3"}, []string{"c3"}},
		{"field and label", []string{"--field-selector", "metadata.name!=c1", "-l", "app=demo"}, []string{"c2", "c3"}},
	} {
		got := getNames(t, s, append([]string{"get", "configmaps", "-n", ns}, tc.args...)...)
		var want []string
		for _, n := range tc.want {
			want = append(want, "configmap/"+n)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: kubectl get configmaps %v = %v, want %v", tc.name, tc.args, got, want)
		}
	}
}

// testKubectlChunking lists five ConfigMaps in pages of two.
func testKubectlChunking(t *testing.T, s *framework.Server, ns string) {
	createLabeled(t, s, ns)
	want := []string{"configmap/c1", "configmap/c2", "configmap/c3", "configmap/c4", "configmap/c5"}
	for _, args := range [][]string{
		{"--chunk-size=2", "-l", "app"},
		{"--chunk-size=1", "-l", "app"},
		{"--chunk-size=500", "-l", "app"},
	} {
		if got := getNames(t, s, append([]string{"get", "configmaps", "-n", ns}, args...)...); !slices.Equal(got, want) {
			t.Errorf("kubectl get configmaps %v = %v, want %v", args, got, want)
		}
	}

	// Follow the pages by hand to see that the server paged at all.
	var names []string
	var listRV string
	path := "/api/v1/namespaces/" + ns + "/configmaps?labelSelector=app&limit=2"
	for pages := 1; ; pages++ {
		var list corev1.ConfigMapList
		if err := json.Unmarshal([]byte(kubectl(t, s, "get", "--raw", path)), &list); err != nil {
			t.Fatalf("decoding page %d: %v", pages, err)
		}
		if len(list.Items) > 2 {
			t.Fatalf("page %d has %d items, want at most 2", pages, len(list.Items))
		}
		if listRV == "" {
			listRV = list.ResourceVersion
		} else if list.ResourceVersion != listRV {
			t.Errorf("page %d has resourceVersion %s, want the first page's %s", pages, list.ResourceVersion, listRV)
		}
		for _, cm := range list.Items {
			names = append(names, "configmap/"+cm.Name)
		}
		if list.Continue == "" {
			if pages != 3 {
				t.Errorf("5 items in pages of 2 took %d pages, want 3", pages)
			}
			break
		}
		if pages > 5 {
			t.Fatalf("still paging after %d pages: %v", pages, names)
		}
		path = "/api/v1/namespaces/" + ns + "/configmaps?labelSelector=app&limit=2&continue=" + url.QueryEscape(list.Continue)
	}
	if !slices.Equal(names, want) {
		t.Errorf("paged by hand: %v, want %v", names, want)
	}
}

// testKubectlDiscovery checks kubectl's view of the API: short names, the
// "all" category and `kubectl get all`.
func testKubectlDiscovery(t *testing.T, s *framework.Server, ns string) {
	out := kubectl(t, s, "api-resources", "--no-headers")
	short := map[string]string{} // resource name -> short names column
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) == 5 {
			short[f[0]] = f[1]
		}
	}
	for _, tc := range []struct{ resource, short string }{
		{"pods", "po"}, {"nodes", "no"}, {"namespaces", "ns"}, {"configmaps", "cm"}, {"services", "svc"},
		{"endpoints", "ep"}, {"events", "ev"}, {"serviceaccounts", "sa"}, {"deployments", "deploy"}, {"replicasets", "rs"},
	} {
		if got, ok := short[tc.resource]; !ok || !slices.Contains(strings.Split(got, ","), tc.short) {
			t.Errorf("kubectl api-resources: %s has short names %q, want %q\n%s", tc.resource, got, tc.short, out)
		}
	}
	if got := getNames(t, s, "get", "po,cm", "-n", ns); len(got) != 0 {
		t.Errorf("short names po,cm in an empty namespace listed %v", got)
	}

	all := strings.Fields(kubectl(t, s, "api-resources", "--categories=all", "-o", "name"))
	slices.Sort(all)
	if want := []string{"deployments.apps", "pods", "replicasets.apps", "services"}; !slices.Equal(all, want) {
		t.Errorf("kubectl api-resources --categories=all = %v, want %v", all, want)
	}

	rs := filepath.Join(t.TempDir(), "rs.yaml")
	writeFile(t, rs, `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-rs}
spec:
  replicas: 1
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	kubectl(t, s, "apply", "-n", ns, "-f", rs)
	kubectl(t, s, "create", "deployment", "web", "--image=nginx", "-n", ns)
	kubectl(t, s, "create", "service", "clusterip", "web", "--tcp=80:80", "-n", ns)
	kubectl(t, s, "run", "solo", "--image=nginx", "-n", ns)
	kubectl(t, s, "create", "configmap", "not-in-all", "-n", ns)
	got := getNames(t, s, "get", "all", "-n", ns)
	want := []string{"deployment.apps/web", "pod/solo", "replicaset.apps/web-rs", "service/web"}
	if !slices.Equal(got, want) {
		t.Errorf("kubectl get all = %v, want %v", got, want)
	}
}

// testKubectlErrors checks that failures print Kubernetes-style messages.
func testKubectlErrors(t *testing.T, s *framework.Server, ns string) {
	dir := t.TempDir()
	dup, orphan := filepath.Join(dir, "dup.yaml"), filepath.Join(dir, "orphan.yaml")
	writeFile(t, dup, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup, namespace: "+ns+"}\n")
	writeFile(t, orphan, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: orphan, namespace: no-such-ns}\n")
	kubectl(t, s, "create", "-f", dup)

	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of kubectl's stderr
	}{
		{"get missing", []string{"get", "configmap", "missing", "-n", ns},
			[]string{`Error from server (NotFound): configmaps "missing" not found`}},
		{"get missing deployment", []string{"get", "deployment", "missing", "-n", ns},
			[]string{`Error from server (NotFound): deployments.apps "missing" not found`}},
		{"create duplicate from file", []string{"create", "-f", dup},
			[]string{`Error from server (AlreadyExists)`, `configmaps "dup" already exists`}},
		{"create duplicate imperatively", []string{"create", "configmap", "dup", "-n", ns},
			[]string{`configmaps "dup" already exists`}},
		{"create in missing namespace", []string{"create", "-f", orphan},
			[]string{`Error from server (NotFound)`, `namespaces "no-such-ns" not found`}},
		{"invalid name", []string{"create", "configmap", "Bad_Name", "-n", ns},
			[]string{`ConfigMap "Bad_Name" is invalid`, `metadata.name: Invalid value: "Bad_Name"`}},
		{"delete missing", []string{"delete", "configmap", "missing", "-n", ns},
			[]string{`Error from server (NotFound): configmaps "missing" not found`}},
		{"unknown resource", []string{"get", "widgets"},
			[]string{`the server doesn't have a resource type "widgets"`}},
	} {
		msg := kubectlFails(t, s, tc.args...)
		for _, want := range tc.want {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: kubectl %s failed with\n%s\nwant it to contain %q", tc.name, strings.Join(tc.args, " "), msg, want)
			}
		}
	}
}
