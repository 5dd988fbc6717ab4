package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
)

// TestKubectlWebhook registers, with kubectl apply, a ValidatingWebhookConfiguration
// whose HTTPS webhook the test serves on 127.0.0.1. The webhook denies
// configmaps labelled forbidden=true: kubectl create of one exits non-zero
// with the webhook's message on stderr; one without the label is created,
// and a secret, which the webhook's rules do not match, never reaches it.
// It has a server of its own: the webhook's failurePolicy is Fail, and other
// tests' configmaps must not depend on this test's webhook server.
func TestKubectlWebhook(t *testing.T) {
	requireKubectl(t)
	s := startServer(t)

	const denial = "configmaps labelled forbidden=true are not allowed in this cluster"
	var mu sync.Mutex
	calls := map[string]int{} // resource → AdmissionReviews received
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			Request struct {
				UID      string `json:"uid"`
				Resource struct {
					Resource string `json:"resource"`
				} `json:"resource"`
				Object struct {
					Metadata struct {
						Labels map[string]string `json:"labels"`
					} `json:"metadata"`
				} `json:"object"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		calls[review.Request.Resource.Resource]++
		mu.Unlock()
		resp := map[string]any{"uid": review.Request.UID, "allowed": true}
		if review.Request.Object.Metadata.Labels["forbidden"] == "true" {
			resp["allowed"] = false
			resp["status"] = map[string]any{"code": 403, "reason": "Forbidden", "message": denial}
		}
		json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	}))
	t.Cleanup(hook.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))

	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	config := write("webhook.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: e2e-deny}
webhooks:
- name: deny.e2e.example.com
  clientConfig:
    url: `+hook.URL+`/validate
    caBundle: `+ca+`
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 5
`)
	bad := write("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: default, labels: {forbidden: \"true\"}}\ndata: {a: \"1\"}\n")
	good := write("good.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: default}\ndata: {a: \"1\"}\n")
	secret := write("secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: other, namespace: default, labels: {forbidden: \"true\"}}\nstringData: {a: \"1\"}\n")

	if out := kubectl(t, s, "apply", "-f", config); strings.TrimSpace(out) != "validatingwebhookconfiguration.admissionregistration.k8s.io/e2e-deny created" {
		t.Fatalf("apply: %q", out)
	}
	// Each server follows the configurations by watch: wait until it calls the webhook.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := framework.Kubectl(t, s, "create", "--dry-run=server", "-f", bad); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the webhook was never called")
		}
		time.Sleep(100 * time.Millisecond)
	}

	_, err := framework.Kubectl(t, s, "create", "-f", bad)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("kubectl create of a denied object: %v, want a non-zero exit", err)
	}
	if want := `admission webhook "deny.e2e.example.com" denied the request: ` + denial; !strings.Contains(err.Error(), "Error from server (Forbidden)") || !strings.Contains(err.Error(), want) {
		t.Errorf("stderr of the denied create: %v\nwant it to contain %q", err, want)
	}
	if msg := kubectlFails(t, s, "get", "configmap", "bad", "-n", "default"); !strings.Contains(msg, "NotFound") {
		t.Errorf("the denied configmap exists: %s", msg)
	}
	if out := kubectl(t, s, "create", "-f", good); strings.TrimSpace(out) != "configmap/good created" {
		t.Errorf("create of an allowed configmap: %q", out)
	}
	mu.Lock()
	before := calls["secrets"]
	mu.Unlock()
	if out := kubectl(t, s, "create", "-f", secret); strings.TrimSpace(out) != "secret/other created" {
		t.Errorf("create of a secret the rules do not match: %q", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["secrets"] != before || calls["configmaps"] < 3 {
		t.Errorf("webhook calls %v: want configmaps (dry run, denied, allowed) and no secrets", calls)
	}
}
