package apiserver_test

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestAdmissionWebhooks runs a mutating and a validating webhook over HTTPS
// (started by the test), then failurePolicy Fail and Ignore against a dead one.
func TestAdmissionWebhooks(t *testing.T) {
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rv struct {
			Request struct {
				UID       string         `json:"uid"`
				Operation string         `json:"operation"`
				Object    map[string]any `json:"object"`
			} `json:"request"`
		}
		json.NewDecoder(r.Body).Decode(&rv)
		resp := map[string]any{"uid": rv.Request.UID, "allowed": true}
		labels, _ := rv.Request.Object["metadata"].(map[string]any)["labels"].(map[string]any)
		switch r.URL.Path {
		case "/mutate":
			resp["patchType"] = "JSONPatch"
			resp["patch"] = base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/data/injected","value":"yes"}]`))
		case "/validate":
			if labels["deny"] == "true" {
				resp["allowed"] = false
				resp["status"] = map[string]any{"code": 403, "message": "label deny=true is not allowed", "reason": "Forbidden"}
			}
			resp["warnings"] = []string{"checked by the test webhook"}
		}
		json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	}))
	defer hook.Close()
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))
	s := setupServer(t)
	config := func(kind, name, path, policy string) string {
		return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"` + kind + `","metadata":{"name":"` + name + `"},"webhooks":[{"name":"` + name + `.example.com",
		"clientConfig":{"url":"` + hook.URL + path + `","caBundle":"` + ca + `"},"failurePolicy":"` + policy + `","timeoutSeconds":2,"sideEffects":"None","admissionReviewVersions":["v1"],
		"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]}]}`
	}
	for _, c := range []struct{ path, body string }{
		{"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", config("MutatingWebhookConfiguration", "inject", "/mutate", "Fail")},
		{"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", config("ValidatingWebhookConfiguration", "policy", "/validate", "Fail")},
	} {
		if code, b, _ := rawH(t, s, "POST", c.path, "application/json", c.body); code != 201 {
			t.Fatalf("creating %s: %d %s", c.path, code, b)
		}
	}
	const cms = "/api/v1/namespaces/default/configmaps"
	cm := func(name, labels string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","labels":{` + labels + `}},"data":{"a":"1"}}`
	}
	// The source follows a watch: wait until both webhooks act.
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; ; i++ {
		_, b, h := rawH(t, s, "POST", cms+"?dryRun=All", "application/json", cm("probe", ""))
		if strings.Contains(string(b), `"injected":"yes"`) && len(h.Values("Warning")) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks never called: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, b, h := rawH(t, s, "POST", cms, "application/json", cm("mutated", `"app":"x"`))
	if code != 201 || !strings.Contains(string(b), `"injected":"yes"`) {
		t.Errorf("mutating webhook: %d %s", code, b)
	}
	if got := h.Values("Warning"); !reflect.DeepEqual(got, []string{`299 - "checked by the test webhook"`}) {
		t.Errorf("warnings %q", got)
	}
	code, b, _ = rawH(t, s, "POST", cms, "application/json", cm("denied", `"deny":"true"`))
	if st := status(t, b); code != 403 || st.Reason != "Forbidden" || st.Message != `admission webhook "policy.example.com" denied the request: label deny=true is not allowed` {
		t.Errorf("denied: %d %s", code, b)
	}
	if code, _, _ := rawH(t, s, "POST", "/api/v1/namespaces/default/secrets", "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","labels":{"deny":"true"}}}`); code != 201 {
		t.Errorf("a secret does not match the rules, yet got %d", code)
	}

	// A webhook that cannot be reached: Fail refuses the write (500), Ignore lets it through.
	hook.Close()
	code, b, _ = rawH(t, s, "POST", cms, "application/json", cm("unreachable", ""))
	if st := status(t, b); code != 500 || !strings.Contains(st.Message, `failed calling webhook "inject.example.com"`) {
		t.Errorf("failurePolicy Fail: %d %s", code, b)
	}
	for _, p := range []string{"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/inject", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/policy"} {
		if code, b, _ := rawH(t, s, "PATCH", p, "application/merge-patch+json", `{"webhooks":[{"name":"x.example.com","failurePolicy":"Ignore","clientConfig":{"url":"`+hook.URL+`/gone"},"sideEffects":"None","admissionReviewVersions":["v1"],"rules":[{"operations":["*"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]}]}`); code != 200 {
			t.Fatalf("patch %s: %d %s", p, code, b)
		}
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		code, b, _ = rawH(t, s, "POST", cms, "application/json", cm("ignored", ""))
		if code == 201 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("failurePolicy Ignore: %d %s", code, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
