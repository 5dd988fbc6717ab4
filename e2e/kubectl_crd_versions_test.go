package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/e2e/framework"
)

const thingCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.versions.e2e.example.com
spec:
  group: versions.e2e.example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing}
  conversion: {strategy: None}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}
  - name: v2
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}
`

// testKubectlCRDVersions serves a CRD in two versions with kubectl: an object
// applied as v1 reads through <plural>.<version>.<group> as either version,
// one applied as v2 as well, and a CRD with two storage versions is refused.
func testKubectlCRDVersions(t *testing.T, s *framework.Server, ns string) {
	dir := t.TempDir()
	crd := filepath.Join(dir, "crd.yaml")
	os.WriteFile(crd, []byte(thingCRD), 0o644)
	kubectl(t, s, "apply", "-f", crd)
	kubectl(t, s, "wait", "--for=condition=Established", "crd/things.versions.e2e.example.com", "--timeout=10s")
	for _, tc := range []struct{ name, version string }{{"t1", "v1"}, {"t2", "v2"}} {
		file := filepath.Join(dir, tc.name+".yaml")
		os.WriteFile(file, []byte("apiVersion: versions.e2e.example.com/"+tc.version+"\nkind: Thing\nmetadata: {name: "+tc.name+"}\nspec: {size: 1}\n"), 0o644)
		applyNewKind(t, s, ns, file)
	}
	for _, v := range []string{"v1", "v2"} {
		for _, name := range []string{"t1", "t2"} {
			if out := kubectl(t, s, "get", "things."+v+".versions.e2e.example.com", name, "-n", ns, "-o", "jsonpath={.apiVersion} {.spec.size}"); out != "versions.e2e.example.com/"+v+" 1" {
				t.Errorf("get %s through %s: %q", name, v, out)
			}
		}
	}
	if out := kubectl(t, s, "api-versions"); !strings.Contains(out, "versions.e2e.example.com/v1\n") || !strings.Contains(out, "versions.e2e.example.com/v2\n") {
		t.Errorf("api-versions:\n%s", out)
	}
	twoStorage := strings.Replace(strings.Replace(thingCRD, "storage: false", "storage: true", 1), "name: things.versions", "name: others.versions", 1)
	twoStorage = strings.Replace(twoStorage, "{plural: things, singular: thing, kind: Thing}", "{plural: others, singular: other, kind: Other}", 1)
	os.WriteFile(crd, []byte(twoStorage), 0o644)
	if msg := kubectlFails(t, s, "apply", "-f", crd); !strings.Contains(msg, `The CustomResourceDefinition "others.versions.e2e.example.com" is invalid: spec.versions: Invalid value: 2: must have exactly one version marked as storage version`) {
		t.Errorf("two storage versions: %s", msg)
	}
	kubectl(t, s, "delete", "crd", "things.versions.e2e.example.com")
}
