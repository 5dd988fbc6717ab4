package rules_test

import (
	"reflect"
	"testing"

	"github.com/capstan-io/capstan/admission/rules"
	"github.com/capstan-io/capstan/apiserver/api"
)

func crd(group, plural, singular, kind, listKind string, short ...string) api.Object {
	names := map[string]any{"plural": plural, "kind": kind}
	if singular != "" {
		names["singular"] = singular
	}
	if listKind != "" {
		names["listKind"] = listKind
	}
	if len(short) > 0 {
		s := make([]any, len(short))
		for i, n := range short {
			s[i] = n
		}
		names["shortNames"] = s
	}
	return api.Object{"metadata": map[string]any{"name": plural + "." + group}, "spec": map[string]any{"group": group, "names": names}}
}

// TestCRDNameConflicts checks which names of a CRD another CRD of its group or
// a built-in resource of its group already holds, with Kubernetes' reasons.
func TestCRDNameConflicts(t *testing.T) {
	t.Parallel()
	widgets := crd("example.com", "widgets", "widget", "Widget", "", "wd")
	type conflict struct{ field, value, reason, owner string }
	const byWidgets = `CustomResourceDefinition "widgets.example.com"`
	for _, tc := range []struct {
		name string
		crd  api.Object
		want []conflict
	}{
		{"no clash", crd("example.com", "gadgets", "gadget", "Gadget", "", "gd"), nil},
		{"other group", crd("other.example.com", "widgets", "widget", "Widget", "", "wd"), nil},
		{"itself (an update)", widgets, nil},
		{"plural is a singular", crd("example.com", "widget", "gadget", "Gadget", ""),
			[]conflict{{"spec.names.plural", "widget", "PluralConflict", byWidgets}}},
		{"singular defaults to the lower-case kind", crd("example.com", "gadgets", "", "Wd", "WdList"),
			[]conflict{{"spec.names.singular", "wd", "SingularConflict", byWidgets}}},
		{"short names", crd("example.com", "gadgets", "gadget", "Gadget", "", "gd", "widgets", "wd"), []conflict{
			{"spec.names.shortNames[1]", "widgets", "ShortNamesConflict", byWidgets},
			{"spec.names.shortNames[2]", "wd", "ShortNamesConflict", byWidgets}}},
		{"kind and its default list kind", crd("example.com", "gadgets", "gadget", "Widget", ""), []conflict{
			{"spec.names.kind", "Widget", "KindConflict", byWidgets},
			{"spec.names.listKind", "WidgetList", "ListKindConflict", byWidgets}}},
		{"a list kind that is a kind", crd("example.com", "gadgets", "gadget", "Gadget", "Widget"),
			[]conflict{{"spec.names.listKind", "Widget", "ListKindConflict", byWidgets}}},
		{"built-in short name", crd("apps", "dogs", "dog", "Dog", "", "deploy"),
			[]conflict{{"spec.names.shortNames[0]", "deploy", "ShortNamesConflict", `the built-in resource "deployments.apps"`}}},
		{"built-in kind", crd("rbac.authorization.k8s.io", "myroles", "myrole", "Role", ""), []conflict{
			{"spec.names.kind", "Role", "KindConflict", `the built-in resource "roles.rbac.authorization.k8s.io"`},
			{"spec.names.listKind", "RoleList", "ListKindConflict", `the built-in resource "roles.rbac.authorization.k8s.io"`}}},
		{"core kinds do not reach named groups", crd("example.com", "pods", "pod", "Pod", "", "po"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []conflict
			for _, c := range rules.CRDNameConflicts(tc.crd, []api.Object{widgets}) {
				got = append(got, conflict{c.Field.String(), c.Value, c.Reason, c.Owner})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("conflicts %q, want %q", got, tc.want)
			}
		})
	}
}
