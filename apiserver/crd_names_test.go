package apiserver_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

const crdsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// gadgetCRD is a second CRD of widgetCRD's group whose names clash with
// nothing, edited by patch.
func gadgetCRD(t *testing.T, patch string) string {
	t.Helper()
	doc := edit(t, widgetCRD, `{"metadata":{"name":"gadgets.example.com"},"spec":{"names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","shortNames":["gd"],"categories":[]}}}`)
	return edit(t, doc, patch)
}

// TestCRDNameConflicts checks that a CRD claiming a name another CRD of its
// group or a built-in resource of its group holds is refused with 422 and one
// cause per name, that nothing is stored, and that the same names in another
// group are fine.
func TestCRDNameConflicts(t *testing.T) {
	s := setupServer(t)
	if code, b, _ := rawH(t, s, "POST", crdsPath, "application/json", widgetCRD); code != 201 {
		t.Fatalf("create widgets: %d %s", code, b)
	}
	const byWidgets = `is already in use by CustomResourceDefinition "widgets.example.com"`
	for _, tc := range []struct {
		name, edit string
		want       []cause // nil: 201 Created
	}{
		{"plural is another's singular", `{"metadata":{"name":"widget.example.com"},"spec":{"names":{"plural":"widget"}}}`,
			[]cause{{"spec.names.plural", "FieldValueInvalid", `Invalid value: "widget": ` + byWidgets}}},
		{"singular is another's plural", `{"spec":{"names":{"singular":"widgets"}}}`,
			[]cause{{"spec.names.singular", "FieldValueInvalid", `Invalid value: "widgets": ` + byWidgets}}},
		{"short name taken", `{"spec":{"names":{"shortNames":["gd","wd"]}}}`,
			[]cause{{"spec.names.shortNames[1]", "FieldValueInvalid", `Invalid value: "wd": ` + byWidgets}}},
		{"kind taken, and so its list kind", `{"spec":{"names":{"kind":"Widget","singular":"gadget"}}}`, []cause{
			{"spec.names.kind", "FieldValueInvalid", `Invalid value: "Widget": ` + byWidgets},
			{"spec.names.listKind", "FieldValueInvalid", `Invalid value: "WidgetList": ` + byWidgets}}},
		{"list kind taken", `{"spec":{"names":{"listKind":"WidgetList"}}}`,
			[]cause{{"spec.names.listKind", "FieldValueInvalid", `Invalid value: "WidgetList": ` + byWidgets}}},
		{"built-in resource of the group", `{"metadata":{"name":"leases.coordination.k8s.io"},"spec":{"group":"coordination.k8s.io","names":{"plural":"leases","singular":"lease","kind":"Lease","shortNames":[]}}}`, []cause{
			{"spec.names.plural", "FieldValueInvalid", `Invalid value: "leases": is already in use by the built-in resource "leases.coordination.k8s.io"`},
			{"spec.names.singular", "FieldValueInvalid", `Invalid value: "lease": is already in use by the built-in resource "leases.coordination.k8s.io"`},
			{"spec.names.kind", "FieldValueInvalid", `Invalid value: "Lease": is already in use by the built-in resource "leases.coordination.k8s.io"`},
			{"spec.names.listKind", "FieldValueInvalid", `Invalid value: "LeaseList": is already in use by the built-in resource "leases.coordination.k8s.io"`}}},
		{"the same names in another group", `{"metadata":{"name":"widgets.other.example.com"},"spec":{"group":"other.example.com","names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]}}}`, nil},
		{"no clash", `{}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := gadgetCRD(t, tc.edit)
			code, b, _ := rawH(t, s, "POST", crdsPath, "application/json", doc)
			name := mustDecode(t, doc).Name()
			if tc.want == nil {
				if code != 201 {
					t.Fatalf("code %d: %s", code, b)
				}
				if code, b, _ := rawH(t, s, "DELETE", crdsPath+"/"+name, "", ""); code != 200 {
					t.Fatalf("delete: %d %s", code, b)
				}
				return
			}
			if code != 422 {
				t.Fatalf("code %d: %s", code, b)
			}
			st := status(t, b)
			var got []cause
			for _, c := range st.Details.Causes {
				got = append(got, cause{c.Field, c.Type, c.Message})
			}
			if !reflect.DeepEqual(got, tc.want) || st.Reason != "Invalid" || st.Details.Kind != "CustomResourceDefinition" {
				t.Errorf("reason %s, causes %q, want %q", st.Reason, got, tc.want)
			}
			if code, _, _ := rawH(t, s, "GET", crdsPath+"/"+name, "", ""); code != 404 {
				t.Errorf("refused CRD stored: GET %d", code)
			}
		})
	}

	// An update may keep the names it holds but not take another's.
	if code, b, _ := rawH(t, s, "POST", crdsPath, "application/json", gadgetCRD(t, `{}`)); code != 201 {
		t.Fatalf("create gadgets: %d %s", code, b)
	}
	patch := `{"spec":{"names":{"shortNames":["gd","wd"]}}}`
	if code, b, _ := rawH(t, s, "PATCH", crdsPath+"/gadgets.example.com", "application/merge-patch+json", patch); code != 422 || !strings.Contains(string(b), `spec.names.shortNames[1]: Invalid value: \"wd\"`) {
		t.Errorf("update taking a short name: %d %s", code, b)
	}
	if code, b, _ := rawH(t, s, "PATCH", crdsPath+"/gadgets.example.com", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`); code != 200 {
		t.Errorf("update keeping its names: %d %s", code, b)
	}
}

// TestCRDNamesAcceptedFalse lets two conflicting CRDs past admission (as two
// servers admitting them at the same moment would) and checks that the older
// one is served, the newer one gets NamesAccepted=False with Kubernetes'
// reason and is not served, and that it is accepted once the older one goes.
func TestCRDNamesAcceptedFalse(t *testing.T) {
	s := apiservertest.Start(t, func(c *apiserver.Config) { c.DisableAdmissionPlugins = []string{"KindRules"} })
	if code, b, _ := rawH(t, s, "POST", crdsPath, "application/json", widgetCRD); code != 201 {
		t.Fatalf("create widgets: %d %s", code, b)
	}
	waitFor(t, "widgets Established", func() bool {
		_, b, _ := rawH(t, s, "GET", crdsPath+"/widgets.example.com", "", "")
		return conditionStatus(t, b, "Established") == "True"
	})
	clash := gadgetCRD(t, `{"spec":{"names":{"kind":"Widget"}}}`)
	if code, b, _ := rawH(t, s, "POST", crdsPath, "application/json", clash); code != 201 {
		t.Fatalf("create gadgets: %d %s", code, b)
	}
	var crd []byte
	waitFor(t, "gadgets NamesAccepted=False", func() bool {
		_, crd, _ = rawH(t, s, "GET", crdsPath+"/gadgets.example.com", "", "")
		return conditionStatus(t, crd, "NamesAccepted") == "False"
	})
	o := mustDecode(t, string(crd))
	c := condition(o, "NamesAccepted")
	if c["reason"] != "KindConflict" || c["message"] != `"Widget" is already in use by CustomResourceDefinition "widgets.example.com", "WidgetList" is already in use by CustomResourceDefinition "widgets.example.com"` {
		t.Errorf("NamesAccepted %v", c)
	}
	if e := condition(o, "Established"); e["status"] != "False" || e["reason"] != "NotAccepted" {
		t.Errorf("Established %v", e)
	}
	if code, _, _ := rawH(t, s, "GET", "/apis/example.com/v1/namespaces/default/gadgets", "", ""); code != 404 {
		t.Errorf("a CRD whose names are not accepted is served: %d", code)
	}
	if code, _, _ := rawH(t, s, "GET", "/apis/example.com/v1/namespaces/default/widgets", "", ""); code != 200 {
		t.Errorf("the older CRD is not served: %d", code)
	}

	if code, b, _ := rawH(t, s, "DELETE", crdsPath+"/widgets.example.com", "", ""); code != 200 {
		t.Fatalf("delete widgets: %d %s", code, b)
	}
	waitFor(t, "gadgets accepted", func() bool {
		_, b, _ := rawH(t, s, "GET", crdsPath+"/gadgets.example.com", "", "")
		return conditionStatus(t, b, "NamesAccepted") == "True" && conditionStatus(t, b, "Established") == "True"
	})
	waitFor(t, "gadgets served", func() bool {
		code, _, _ := rawH(t, s, "GET", "/apis/example.com/v1/namespaces/default/gadgets", "", "")
		return code == 200
	})
}

func condition(o map[string]any, typ string) map[string]any {
	st, _ := o["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			return m
		}
	}
	return nil
}

func conditionStatus(t *testing.T, crd []byte, typ string) any {
	t.Helper()
	o, err := api.Decode(crd)
	if err != nil {
		return nil
	}
	return condition(o, typ)["status"]
}

func mustDecode(t *testing.T, doc string) api.Object {
	t.Helper()
	o, err := api.Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return o
}
