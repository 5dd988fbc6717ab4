package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/capstan-io/capstan/e2e/framework"
)

// TestKubectl drives the real kubectl against one server. Each scenario runs in
// parallel in a namespace of its own, so their state does not interfere.
func TestKubectl(t *testing.T) {
	requireKubectl(t)
	s := startServer(t)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, s *framework.Server, ns string)
	}{
		{"apply", testKubectlApply},
		{"output-formats", testKubectlOutputFormats},
		{"deployment", testKubectlDeployment},
		{"metadata-and-patch", testKubectlMetadataAndPatch},
		{"delete", testKubectlDelete},
		{"selectors", testKubectlSelectors},
		{"chunking", testKubectlChunking},
		{"discovery", testKubectlDiscovery},
		{"watch", testKubectlWatch},
		{"errors", testKubectlErrors},
		{"explain", testKubectlExplain},
		{"field-validation", testKubectlFieldValidation},
		{"apply-twice", testKubectlApplyTwice},
		{"crd", testKubectlCRD},
		{"crd-versions", testKubectlCRDVersions},
		{"server-side-apply", testKubectlServerSideApply},
		{"update-managers", testKubectlUpdateManagers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := "e2e-" + tc.name
			if out := kubectl(t, s, "create", "namespace", ns); strings.TrimSpace(out) != "namespace/"+ns+" created" {
				t.Fatalf("kubectl create namespace %s printed %q", ns, out)
			}
			tc.run(t, s, ns)
		})
	}
}

// testKubectlApply applies one ConfigMap file three times: new, same, changed.
func testKubectlApply(t *testing.T, s *framework.Server, ns string) {
	file := filepath.Join(t.TempDir(), "settings.yaml")
	var lastRV int64
	for _, step := range []struct {
		name, color string
		wantOut     string
		wantNewRV   bool
	}{
		{"create", "blue", "configmap/settings created", true},
		{"same again", "blue", "configmap/settings unchanged", false},
		{"modified", "red", "configmap/settings configured", true},
	} {
		writeFile(t, file, `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: `+ns+`
  labels: {app: demo}
data:
  color: `+step.color+"\n")
		if out := kubectl(t, s, "apply", "-f", file); strings.TrimSpace(out) != step.wantOut {
			t.Fatalf("%s: kubectl apply printed %q, want %q", step.name, out, step.wantOut)
		}
		var cm corev1.ConfigMap
		kubectlJSON(t, s, &cm, "get", "configmap", "settings", "-n", ns)
		if cm.Data["color"] != step.color {
			t.Errorf("%s: data.color = %q, want %q", step.name, cm.Data["color"], step.color)
		}
		if _, ok := cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; !ok {
			t.Errorf("%s: no last-applied-configuration annotation: %v", step.name, cm.Annotations)
		}
		rv := parseRV(t, cm.ResourceVersion)
		if gotNew := rv != lastRV; gotNew != step.wantNewRV || rv < lastRV {
			t.Errorf("%s: resourceVersion went from %d to %d; want a new, larger one: %v", step.name, lastRV, rv, step.wantNewRV)
		}
		lastRV = rv
	}
}

// testKubectlOutputFormats checks that -o json, -o yaml and -o jsonpath show
// the same, complete object.
func testKubectlOutputFormats(t *testing.T, s *framework.Server, ns string) {
	kubectl(t, s, "create", "configmap", "shown", "-n", ns, "--from-literal=color=blue", "--from-literal=size=L")
	kubectl(t, s, "label", "configmap", "shown", "-n", ns, "app=demo")

	var fromJSON corev1.ConfigMap
	kubectlJSON(t, s, &fromJSON, "get", "configmap", "shown", "-n", ns)
	for _, c := range []struct{ field, got, want string }{
		{"apiVersion", fromJSON.APIVersion, "v1"},
		{"kind", fromJSON.Kind, "ConfigMap"},
		{"metadata.name", fromJSON.Name, "shown"},
		{"metadata.namespace", fromJSON.Namespace, ns},
		{"metadata.labels.app", fromJSON.Labels["app"], "demo"},
		{"data.color", fromJSON.Data["color"], "blue"},
		{"data.size", fromJSON.Data["size"], "L"},
	} {
		if c.got != c.want {
			t.Errorf("-o json: %s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if fromJSON.UID == "" || fromJSON.CreationTimestamp.IsZero() {
		t.Errorf("-o json: want uid and creationTimestamp set, got %q and %v", fromJSON.UID, fromJSON.CreationTimestamp)
	}
	parseRV(t, fromJSON.ResourceVersion)

	var fromYAML corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(kubectl(t, s, "get", "configmap", "shown", "-n", ns, "-o", "yaml")), &fromYAML); err != nil {
		t.Fatalf("decoding -o yaml: %v", err)
	}
	if a, b := mustJSON(t, fromJSON), mustJSON(t, fromYAML); a != b {
		t.Errorf("-o yaml differs from -o json:\n yaml: %s\n json: %s", b, a)
	}
	if got := kubectl(t, s, "get", "configmap", "shown", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}"); got != fromJSON.ResourceVersion {
		t.Errorf("-o jsonpath resourceVersion = %q, want %q", got, fromJSON.ResourceVersion)
	}
	if got := kubectl(t, s, "get", "namespaces", "-o", "name"); !strings.Contains(got, "namespace/"+ns+"\n") {
		t.Errorf("kubectl get namespaces -o name does not list %s:\n%s", ns, got)
	}
}

// kubectl runs kubectl against s, failing t if it fails, and returns stdout.
func kubectl(t *testing.T, s *framework.Server, args ...string) string {
	t.Helper()
	out, err := framework.Kubectl(t, s, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// kubectlJSON runs kubectl with -o json appended and decodes stdout into v.
func kubectlJSON(t *testing.T, s *framework.Server, v any, args ...string) {
	t.Helper()
	out := kubectl(t, s, append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("decoding kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// kubectlFails runs kubectl, expecting it to fail, and returns the error text.
func kubectlFails(t *testing.T, s *framework.Server, args ...string) string {
	t.Helper()
	out, err := framework.Kubectl(t, s, args...)
	if err == nil {
		t.Fatalf("kubectl %s succeeded, want an error; stdout:\n%s", strings.Join(args, " "), out)
	}
	return err.Error()
}

// parseRV checks that rv is a positive decimal resourceVersion and returns it.
func parseRV(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("resourceVersion %q is not a positive decimal: %v", rv, err)
	}
	return n
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
