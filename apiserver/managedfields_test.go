package apiserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestUpdateManagedFields checks that writes other than applies record their
// fields under their manager with operation Update (?fieldManager=, else the
// User-Agent's program name), so a later apply of those fields by another
// manager conflicts with it, and that a write changing nothing stays a no-op.
func TestUpdateManagedFields(t *testing.T) {
	s := setupServer(t)
	const deploys = "/apis/apps/v1/namespaces/default/deployments"
	send := func(method, path, contentType, userAgent, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("User-Agent", userAgent)
		resp, err := s.Client.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	type entry struct{ Manager, Operation, Subresource, Fields string }
	managers := func() map[string]entry {
		t.Helper()
		_, b, _ := rawH(t, s, "GET", deploys+"/web", "", "")
		var o struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
				ManagedFields   []struct {
					Manager, Operation, Subresource string
					FieldsV1                        json.RawMessage `json:"fieldsV1"`
				} `json:"managedFields"`
			} `json:"metadata"`
		}
		json.Unmarshal(b, &o)
		out := map[string]entry{"": {Fields: o.Metadata.ResourceVersion}}
		for _, e := range o.Metadata.ManagedFields {
			out[e.Manager] = entry{e.Manager, e.Operation, e.Subresource, string(e.FieldsV1)}
		}
		return out
	}

	deploy := strings.NewReplacer("'", `"`).Replace(`{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'web'},'spec':{'replicas':2,
	 'selector':{'matchLabels':{'app':'web'}},'template':{'metadata':{'labels':{'app':'web'}},'spec':{'containers':[{'name':'c','image':'nginx'}]}}}}`)
	if code, b := send("POST", deploys+"?fieldManager=creator", "application/json", "curl/8.0", deploy); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	if code, b := send("PATCH", deploys+"/web/scale", "application/merge-patch+json", "scaler/1.0 (linux)", `{"spec":{"replicas":4}}`); code != 200 {
		t.Fatalf("scale: %d %s", code, b)
	}
	if code, b := send("PATCH", deploys+"/web", "application/strategic-merge-patch+json", "labeller/2", `{"metadata":{"labels":{"tier":"front"}}}`); code != 200 {
		t.Fatalf("label: %d %s", code, b)
	}
	m := managers()
	for _, tc := range []struct{ manager, subresource, owns string }{
		{"creator", "", `"f:template"`},
		{"scaler", "scale", `"f:replicas"`},
		{"labeller", "", `"f:tier"`},
	} {
		e, ok := m[tc.manager]
		if !ok || e.Operation != "Update" || e.Subresource != tc.subresource || !strings.Contains(e.Fields, tc.owns) {
			t.Errorf("managedFields of %s: %+v, want operation Update (subresource %q) owning %s", tc.manager, e, tc.subresource, tc.owns)
		}
	}
	if strings.Contains(m["creator"].Fields, `"f:replicas"`) {
		t.Errorf("creator still owns replicas after the scale: %s", m["creator"].Fields)
	}

	// An apply of replicas by another manager conflicts with the scaler.
	const apply = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 6}\n"
	code, b := send("PATCH", deploys+"/web?fieldManager=applier", "application/apply-patch+yaml", "kubectl/v1.32.0", apply)
	st := status(t, b)
	if code != 409 || st.Message != `Apply failed with 1 conflict: conflict with "scaler" with subresource "scale" using apps/v1: .spec.replicas` {
		t.Errorf("apply over an Update manager: %d %s", code, b)
	}

	// The same object put back unchanged writes nothing.
	before := managers()[""].Fields
	_, cur, _ := rawH(t, s, "GET", deploys+"/web", "", "")
	if code, b := send("PUT", deploys+"/web", "application/json", "editor/1", string(cur)); code != 200 {
		t.Fatalf("no-op put: %d %s", code, b)
	}
	if after := managers(); after[""].Fields != before {
		t.Errorf("a no-op PUT changed the resourceVersion: %s → %s", before, after[""].Fields)
	} else if _, ok := after["editor"]; ok {
		t.Errorf("a no-op PUT recorded a manager: %+v", after["editor"])
	}
}
