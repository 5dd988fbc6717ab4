package e2e

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/e2e/framework"
)

// testKubectlDeployment creates a Deployment, reads it wide, patches its pod
// template with the default (strategic) patch type and scales it.
func testKubectlDeployment(t *testing.T, s *framework.Server, ns string) {
	kubectl(t, s, "create", "deployment", "web", "--image=nginx", "--replicas=2", "-n", ns)

	lines := strings.Split(strings.TrimSpace(kubectl(t, s, "get", "deployment", "web", "-n", ns, "-o", "wide")), "\n")
	if len(lines) != 2 {
		t.Fatalf("kubectl get deployment -o wide printed %d lines, want a header and one row:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	header, row := strings.Fields(lines[0]), strings.Fields(lines[1])
	wantHeader := []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}
	if strings.Join(header, " ") != strings.Join(wantHeader, " ") || len(row) != len(header) {
		t.Fatalf("-o wide:\n%s\nwant columns %v", strings.Join(lines, "\n"), wantHeader)
	}
	for col, want := range map[string]string{"NAME": "web", "READY": "0/2", "CONTAINERS": "nginx", "IMAGES": "nginx", "SELECTOR": "app=web"} {
		for i, h := range header {
			if h == col && row[i] != want {
				t.Errorf("-o wide column %s = %q, want %q", col, row[i], want)
			}
		}
	}

	// Each strategic merge patch must merge the containers list by name, never replace it.
	for _, step := range []struct {
		name, patch string
		want        map[string]string // container name -> image and env, as "image MODE=value"
	}{
		{
			name:  "env on the existing container",
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"MODE","value":"prod"}]}]}}}}`,
			want:  map[string]string{"nginx": "nginx MODE=prod"},
		},
		{
			name:  "add a sidecar",
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}`,
			want:  map[string]string{"nginx": "nginx MODE=prod", "sidecar": "busybox"},
		},
		{
			name:  "change one image",
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}`,
			want:  map[string]string{"nginx": "nginx MODE=prod", "sidecar": "busybox:1.36"},
		},
	} {
		if out := kubectl(t, s, "patch", "deployment", "web", "-n", ns, "-p", step.patch); strings.TrimSpace(out) != "deployment.apps/web patched" {
			t.Errorf("%s: kubectl patch printed %q", step.name, out)
		}
		var d appsv1.Deployment
		kubectlJSON(t, s, &d, "get", "deployment", "web", "-n", ns)
		got := map[string]string{}
		for _, c := range d.Spec.Template.Spec.Containers {
			got[c.Name] = strings.TrimSpace(c.Image + " " + envString(c.Env))
		}
		if mustJSON(t, got) != mustJSON(t, step.want) {
			t.Errorf("%s: containers = %v, want %v", step.name, got, step.want)
		}
	}

	if out := kubectl(t, s, "scale", "deployment", "web", "-n", ns, "--replicas=5"); strings.TrimSpace(out) != "deployment.apps/web scaled" {
		t.Errorf("kubectl scale printed %q", out)
	}
	if got := kubectl(t, s, "get", "deployment", "web", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "5" {
		t.Errorf("spec.replicas after scale = %q, want 5", got)
	}
}

func envString(env []corev1.EnvVar) string {
	var parts []string
	for _, e := range env {
		parts = append(parts, e.Name+"="+e.Value)
	}
	return strings.Join(parts, " ")
}

// testKubectlMetadataAndPatch edits one ConfigMap with label, annotate and the
// merge and JSON patch types, reading each result back with -o jsonpath.
func testKubectlMetadataAndPatch(t *testing.T, s *framework.Server, ns string) {
	kubectl(t, s, "create", "configmap", "settings", "-n", ns, "--from-literal=color=blue")
	for _, step := range []struct {
		name     string
		args     []string
		wantOut  string
		jsonpath string
		want     string
	}{
		{"label", []string{"label", "configmap", "settings", "tier=backend"}, "configmap/settings labeled", "{.metadata.labels.tier}", "backend"},
		{"relabel", []string{"label", "configmap", "settings", "tier=frontend", "--overwrite"}, "configmap/settings labeled", "{.metadata.labels.tier}", "frontend"},
		{"unlabel", []string{"label", "configmap", "settings", "tier-"}, "configmap/settings unlabeled", "{.metadata.labels.tier}", ""},
		{"annotate", []string{"annotate", "configmap", "settings", "note=hello"}, "configmap/settings annotated", "{.metadata.annotations.note}", "hello"},
		{"merge patch adds", []string{"patch", "configmap", "settings", "--type=merge", "-p", `{"data":{"size":"L"}}`}, "configmap/settings patched", "{.data}", `{"color":"blue","size":"L"}`},
		{"merge patch removes", []string{"patch", "configmap", "settings", "--type=merge", "-p", `{"data":{"size":null}}`}, "configmap/settings patched", "{.data}", `{"color":"blue"}`},
		{"json patch replaces", []string{"patch", "configmap", "settings", "--type=json", "-p", `[{"op":"replace","path":"/data/color","value":"green"}]`}, "configmap/settings patched", "{.data.color}", "green"},
		{"json patch adds", []string{"patch", "configmap", "settings", "--type=json", "-p", `[{"op":"add","path":"/data/shape","value":"round"}]`}, "configmap/settings patched", "{.data}", `{"color":"green","shape":"round"}`},
		{"strategic patch", []string{"patch", "configmap", "settings", "-p", `{"metadata":{"labels":{"app":"demo"}}}`}, "configmap/settings patched", "{.metadata.labels.app}", "demo"},
		{"no-op patch", []string{"patch", "configmap", "settings", "--type=merge", "-p", `{"data":{"color":"green"}}`}, "configmap/settings patched (no change)", "{.data.color}", "green"},
	} {
		out := kubectl(t, s, append(step.args, "-n", ns)...)
		if strings.TrimSpace(out) != step.wantOut {
			t.Errorf("%s: kubectl %s printed %q, want %q", step.name, strings.Join(step.args, " "), out, step.wantOut)
		}
		if got := kubectl(t, s, "get", "configmap", "settings", "-n", ns, "-o", "jsonpath="+step.jsonpath); got != step.want {
			t.Errorf("%s: %s = %q, want %q", step.name, step.jsonpath, got, step.want)
		}
	}
}

// testKubectlDelete deletes by name and by label, then deletes the namespace.
func testKubectlDelete(t *testing.T, s *framework.Server, ns string) {
	for _, name := range []string{"one", "two", "three"} {
		kubectl(t, s, "create", "configmap", name, "-n", ns)
	}
	kubectl(t, s, "label", "configmap", "two", "three", "-n", ns, "doomed=yes")
	kubectl(t, s, "create", "deployment", "web", "--image=nginx", "-n", ns)

	for _, step := range []struct {
		name string
		args []string
		want []string // lines kubectl prints, in any order
	}{
		{"by name", []string{"delete", "configmap", "one"}, []string{`configmap "one" deleted`}},
		{"by label", []string{"delete", "configmap", "-l", "doomed=yes"}, []string{`configmap "two" deleted`, `configmap "three" deleted`}},
		{"deployment", []string{"delete", "deployment", "web"}, []string{`deployment.apps "web" deleted`}},
	} {
		out := kubectl(t, s, append(step.args, "-n", ns)...)
		for _, want := range step.want {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("%s: kubectl %s printed %q, want a line %q", step.name, strings.Join(step.args, " "), out, want)
			}
		}
	}
	if got := kubectl(t, s, "get", "configmaps,deployments", "-n", ns, "-o", "name"); got != "" {
		t.Errorf("after deleting everything, kubectl get -o name printed %q", got)
	}
	if msg := kubectlFails(t, s, "get", "configmap", "one", "-n", ns); !strings.Contains(msg, `Error from server (NotFound): configmaps "one" not found`) {
		t.Errorf("get after delete: %s", msg)
	}

	// Without a namespace controller the namespace stays Terminating, so do not wait.
	if out := kubectl(t, s, "delete", "namespace", ns, "--wait=false"); strings.TrimSpace(out) != `namespace "`+ns+`" deleted` {
		t.Errorf("kubectl delete namespace printed %q", out)
	}
	if got := kubectl(t, s, "get", "namespace", ns, "-o", "jsonpath={.status.phase}"); got != "Terminating" {
		t.Errorf("namespace phase after delete = %q, want Terminating", got)
	}
}
