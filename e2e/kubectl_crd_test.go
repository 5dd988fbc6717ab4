package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
)

const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1, description: How big the gadget is.}
              color: {type: string, enum: [red, blue], default: red}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
`

// testKubectlCRD runs a CRD's life with kubectl: create, explain, apply a
// custom resource twice, printer columns, scale, an invalid object, delete.
func testKubectlCRD(t *testing.T, s *framework.Server, ns string) {
	dir := t.TempDir()
	crd, gadget := filepath.Join(dir, "crd.yaml"), filepath.Join(dir, "gadget.yaml")
	os.WriteFile(crd, []byte(gadgetCRD), 0o644)
	writeGadget := func(size string) {
		os.WriteFile(gadget, []byte("apiVersion: e2e.example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {size: "+size+"}\n"), 0o644)
	}
	kubectl(t, s, "apply", "-f", crd)
	kubectl(t, s, "wait", "--for=condition=Established", "crd/gadgets.e2e.example.com", "--timeout=10s")
	writeGadget("3")
	if out := applyNewKind(t, s, ns, gadget); strings.TrimSpace(out) != "gadget.e2e.example.com/g1 created" {
		t.Fatalf("apply: %q", out)
	}
	if out := kubectl(t, s, "apply", "-n", ns, "-f", gadget); strings.TrimSpace(out) != "gadget.e2e.example.com/g1 unchanged" {
		t.Errorf("second apply: %q", out)
	}
	if out := kubectl(t, s, "explain", "gadget.spec"); !strings.Contains(out, "size\t<integer> -required-") || !strings.Contains(out, "How big the gadget is.") {
		t.Errorf("explain:\n%s", out)
	}
	out := kubectl(t, s, "get", "gd", "-n", ns)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME SIZE COLOR" || strings.Join(strings.Fields(lines[1]), " ") != "g1 3 red" {
		t.Errorf("get:\n%s", out)
	}
	kubectl(t, s, "scale", "gadget", "g1", "-n", ns, "--replicas=2")
	if out := kubectl(t, s, "get", "gadget", "g1", "-n", ns, "-o", "jsonpath={.spec.replicas}"); out != "2" {
		t.Errorf("replicas after scale: %q", out)
	}
	writeGadget("0")
	if msg := kubectlFails(t, s, "apply", "-n", ns, "-f", gadget); !strings.Contains(msg, `The Gadget "g1" is invalid: spec.size: Invalid value: 0: must be greater than or equal to 1`) {
		t.Errorf("invalid apply: %s", msg)
	}
	kubectl(t, s, "delete", "crd", "gadgets.e2e.example.com")
	if msg := kubectlFails(t, s, "get", "--raw", "/apis/e2e.example.com/v1/namespaces/"+ns+"/gadgets/g1"); !strings.Contains(msg, "NotFound") {
		t.Errorf("after delete: %s", msg)
	}
}

// applyNewKind runs kubectl apply -f file in ns for an object of a kind a CRD
// has just added, retrying for up to 10 s: discovery may lag the CRD by up to
// a second, and kubectl retries on its own only after a cache refresh.
func applyNewKind(t *testing.T, s *framework.Server, ns, file string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := framework.Kubectl(t, s, "apply", "-n", ns, "-f", file)
		if err == nil {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
