package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/capstan-io/capstan"

// TestLayering fails the build when a package imports what shared/DESIGN.md §7 forbids it.
func TestLayering(t *testing.T) {
	forbid := []struct {
		importer, reason string
		banned           []string
	}{
		{mod + "/storage", "storage handles bytes and revisions only", []string{mod + "/apiserver", mod + "/agents", mod + "/admission", mod + "/auth", mod + "/openapi"}},
		{mod + "/auth", "auth returns decisions and never writes HTTP", []string{mod + "/apiserver", mod + "/storage"}},
		{mod + "/apiserver/api", "the wire types are the leaf", []string{mod + "/"}},
		{mod + "/apiserver/apierrors", "errors map storage at the edge only", []string{mod + "/storage", mod + "/apiserver/internal"}},
		{mod + "/apiserver/client", "clients never see the server", []string{mod + "/storage", mod + "/apiserver/internal", "go.etcd.io/etcd"}},
		{mod + "/openapi", "openapi reads the API types only", []string{mod + "/storage", mod + "/admission", mod + "/auth", mod + "/apiserver/internal"}},
		{mod + "/admission", "admission reads the API types only", []string{mod + "/storage", mod + "/apiserver/internal"}},
		{mod + "/agents", "agents talk to the hub over HTTP only", []string{mod + "/storage", mod + "/admission", mod + "/auth", mod + "/openapi", mod + "/apiserver/internal", "go.etcd.io/etcd"}},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		if strings.HasSuffix(pkg, "test") {
			// Test-support packages (agenttest, controllertest, storagetest, …)
			// start real servers for tests; they are never linked into a binary.
			continue
		}
		for _, rule := range forbid {
			if pkg != rule.importer && !strings.HasPrefix(pkg, rule.importer+"/") {
				continue
			}
			checked++
			for _, d := range deps {
				for _, b := range rule.banned {
					if d == strings.TrimSuffix(b, "/") || strings.HasPrefix(d, strings.TrimSuffix(b, "/")+"/") {
						t.Errorf("%s imports %s: %s", pkg, d, rule.reason)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package was checked: the rules or go list output are wrong")
	}
}

// TestBinaryLinksNoTestSupport: the exemption above holds only while no
// test-support package is linked into the capstan binary.
func TestBinaryLinksNoTestSupport(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Deps "\n"}}`, mod+"/cmd/capstan").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list returned no dependencies")
	}
	for _, d := range deps {
		if strings.HasPrefix(d, mod+"/") && strings.HasSuffix(d, "test") {
			t.Errorf("capstan links test-support package %s", d)
		}
	}
}
