package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
)

// testKubectlUpdateManagers checks that kubectl's ordinary writes are recorded
// in managedFields (operation Update, under the manager kubectl names), so a
// server-side apply of a field that kubectl scale or kubectl edit set last is
// a conflict naming that manager, and --force-conflicts takes it over.
func testKubectlUpdateManagers(t *testing.T, s *framework.Server, ns string) {
	kubectl(t, s, "create", "deployment", "web", "--image=nginx", "--replicas=1", "-n", ns)
	owner := func(field string) (manager, operation, subresource string) {
		t.Helper()
		var d struct {
			Metadata struct {
				ManagedFields []struct {
					Manager, Operation, Subresource string
					FieldsV1                        map[string]any `json:"fieldsV1"`
				} `json:"managedFields"`
			} `json:"metadata"`
		}
		kubectlJSON(t, s, &d, "get", "deployment", "web", "-n", ns, "--show-managed-fields")
		for _, e := range d.Metadata.ManagedFields {
			spec, _ := e.FieldsV1["f:spec"].(map[string]any)
			if _, ok := spec[field]; ok {
				return e.Manager, e.Operation, e.Subresource
			}
		}
		return "", "", ""
	}
	if m, op, _ := owner("f:replicas"); m != "kubectl-create" || op != "Update" {
		t.Errorf("after kubectl create, replicas owned by %q (%s), want kubectl-create (Update)", m, op)
	}
	manifest := filepath.Join(t.TempDir(), "web.yaml")
	os.WriteFile(manifest, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: "+ns+"}\nspec: {replicas: 5}\n"), 0o644)

	// kubectl edit runs $KUBE_EDITOR <file>: an editor that sets spec.replicas to 2.
	editor := filepath.Join(t.TempDir(), "editor.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\nsed -i '0,/^  replicas: 1$/s//  replicas: 2/' \"$1\"\n"), 0o755)
	for _, step := range []struct {
		name string
		run  func()
	}{
		{"scale", func() { kubectl(t, s, "scale", "deployment", "web", "--replicas=3", "-n", ns) }},
		{"edit", func() {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := framework.KubectlCommand(ctx, s, "edit", "deployment", "web", "-n", ns)
			cmd.Env = append(cmd.Env, "KUBE_EDITOR="+editor)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("kubectl edit: %v\n%s", err, out)
			}
		}},
	} {
		if step.name == "edit" {
			kubectl(t, s, "scale", "deployment", "web", "--replicas=1", "-n", ns) // what the editor replaces
		}
		step.run()
		m, op, sub := owner("f:replicas")
		t.Logf("after kubectl %s, spec.replicas is owned by %q (%s, subresource %q)", step.name, m, op, sub)
		if m == "" || m == "kubectl-create" || op != "Update" {
			t.Errorf("after kubectl %s, replicas owned by %q (%s)", step.name, m, op)
			continue
		}
		if step.name == "edit" && m != "kubectl-edit" {
			t.Errorf("after kubectl edit, replicas owned by %q, want kubectl-edit", m)
		}
		msg := kubectlFails(t, s, "apply", "--server-side", "-f", manifest)
		want := `conflict with "` + m + `" using apps/v1: .spec.replicas`
		if sub != "" {
			want = `conflict with "` + m + `" with subresource "` + sub + `" using apps/v1: .spec.replicas`
		}
		if !strings.Contains(msg, want) {
			t.Errorf("server-side apply after kubectl %s: %s\nwant it to contain %s", step.name, msg, want)
		}
	}
	kubectl(t, s, "apply", "--server-side", "--force-conflicts", "-f", manifest)
	if m, op, _ := owner("f:replicas"); m != "kubectl" || op != "Apply" {
		t.Errorf("after a forced apply, replicas owned by %q (%s), want kubectl (Apply)", m, op)
	}
}
