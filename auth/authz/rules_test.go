package authz

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capstan-io/capstan/auth"
)

func res(verb, group, resource, sub, ns, name string) auth.Attributes {
	return auth.Attributes{User: auth.User{Name: "u"}, ResourceRequest: true, Verb: verb, APIGroup: group,
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestRuleAllows(t *testing.T) {
	t.Parallel()
	pods := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}
	for _, tc := range []struct {
		name string
		rule rbacv1.PolicyRule
		a    auth.Attributes
		want bool
	}{
		{"exact", pods, res("get", "", "pods", "", "d", "x"), true},
		{"other verb", pods, res("delete", "", "pods", "", "d", "x"), false},
		{"other group", pods, res("get", "apps", "pods", "", "d", "x"), false},
		{"subresource not implied", pods, res("get", "", "pods", "log", "d", "x"), false},
		{"subresource named", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"get"}}, res("get", "", "pods", "log", "d", "x"), true},
		{"star slash sub", rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"*/scale"}, Verbs: []string{"update"}}, res("update", "apps", "deployments", "scale", "d", "x"), true},
		{"res slash star", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/*"}, Verbs: []string{"get"}}, res("get", "", "pods", "status", "d", "x"), true},
		{"res slash star not the resource", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/*"}, Verbs: []string{"get"}}, res("get", "", "pods", "", "d", "x"), false},
		{"all", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}, res("deletecollection", "apps", "deployments", "scale", "", ""), true},
		{"resourceNames match", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}, Verbs: []string{"get"}}, res("get", "", "configmaps", "", "d", "a"), true},
		{"resourceNames other", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}, Verbs: []string{"get"}}, res("get", "", "configmaps", "", "d", "b"), false},
		{"resourceNames list", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}, Verbs: []string{"list"}}, res("list", "", "configmaps", "", "d", ""), false},
		{"nonResource exact", rbacv1.PolicyRule{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}, auth.Attributes{Verb: "get", Path: "/healthz"}, true},
		{"nonResource prefix", rbacv1.PolicyRule{NonResourceURLs: []string{"/apis/*"}, Verbs: []string{"get"}}, auth.Attributes{Verb: "get", Path: "/apis/apps/v1"}, true},
		{"nonResource other", rbacv1.PolicyRule{NonResourceURLs: []string{"/apis/*"}, Verbs: []string{"get"}}, auth.Attributes{Verb: "get", Path: "/metrics"}, false},
		{"resource rule does not grant paths", pods, auth.Attributes{Verb: "get", Path: "/api"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RuleAllows(tc.rule, tc.a); got != tc.want {
				t.Errorf("RuleAllows = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	owner := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "configmaps"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"s1"}, Verbs: []string{"get"}},
	}
	for _, tc := range []struct {
		name    string
		rule    rbacv1.PolicyRule
		missing int
	}{
		{"subset", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}, 0},
		{"more verbs", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "delete"}}, 1},
		{"star verb is not covered by a list", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"*"}}, 1},
		{"named secret", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"s1"}, Verbs: []string{"get"}}, 0},
		{"all secrets", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Covers(owner, tc.rule); len(got) != tc.missing {
				t.Errorf("Covers missing %v, want %d", got, tc.missing)
			}
		})
	}
}

func mustPut(t testing.TB, z *RBAC, kind string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := z.Put(kind, b); err != nil {
		t.Fatal(err)
	}
}

func TestRBACAggregationAndBindings(t *testing.T) {
	t.Parallel()
	z := NewRBAC()
	for _, cr := range BootstrapClusterRoles() {
		mustPut(t, z, KindClusterRole, cr)
	}
	for _, b := range BootstrapClusterRoleBindings() {
		mustPut(t, z, KindClusterRoleBinding, b)
	}
	mustPut(t, z, KindRoleBinding, rbacv1.RoleBinding{
		ObjectMeta: metaNS("demo", "view-bob"),
		RoleRef:    rbacv1.RoleRef{Kind: KindClusterRole, Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "bob"}, {Kind: rbacv1.ServiceAccountKind, Name: "bot"}},
	})
	bob := auth.User{Name: "bob", Groups: []string{auth.GroupAuthenticated}}
	bot := auth.User{Name: "system:serviceaccount:demo:bot"}
	otherBot := auth.User{Name: "system:serviceaccount:other:bot"}
	for _, tc := range []struct {
		name string
		a    auth.Attributes
		want auth.Decision
	}{
		{"view aggregates pods", attrs(bob, "list", "", "pods", "demo"), auth.Allow},
		{"view has no writes", attrs(bob, "delete", "", "pods", "demo"), auth.NoOpinion},
		{"view has no secrets", attrs(bob, "get", "", "secrets", "demo"), auth.NoOpinion},
		{"binding is per namespace", attrs(bob, "list", "", "pods", "other"), auth.NoOpinion},
		{"service account subject defaults to the binding's namespace", attrs(bot, "list", "apps", "deployments", "demo"), auth.Allow},
		{"same name in another namespace is not the subject", attrs(otherBot, "list", "", "pods", "demo"), auth.NoOpinion},
		{"discovery for the authenticated", auth.Attributes{User: bob, Verb: "get", Path: "/apis/apps"}, auth.Allow},
		{"no metrics", auth.Attributes{User: bob, Verb: "get", Path: "/metrics"}, auth.NoOpinion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d, _, _ := z.Authorize(context.Background(), tc.a); d != tc.want {
				t.Errorf("Authorize = %v, want %v", d, tc.want)
			}
		})
	}
	z.Delete(KindRoleBinding, "demo", "view-bob")
	if d, _, _ := z.Authorize(context.Background(), attrs(bob, "list", "", "pods", "demo")); d != auth.NoOpinion {
		t.Errorf("after the binding is deleted: %v", d)
	}
}

func attrs(u auth.User, verb, group, resource, ns string) auth.Attributes {
	a := res(verb, group, resource, "", ns, "")
	a.User = u
	return a
}

func TestCheckEscalation(t *testing.T) {
	t.Parallel()
	z := NewRBAC()
	for _, cr := range BootstrapClusterRoles() {
		mustPut(t, z, KindClusterRole, cr)
	}
	mustPut(t, z, KindClusterRole, rbacv1.ClusterRole{ObjectMeta: metaNS("", "role-writer"), Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles", "clusterrolebindings"}, Verbs: []string{"create", "update"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}})
	mustPut(t, z, KindClusterRoleBinding, rbacv1.ClusterRoleBinding{ObjectMeta: metaNS("", "w"),
		RoleRef: rbacv1.RoleRef{Kind: KindClusterRole, Name: "role-writer"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "writer"}}})
	writer := auth.User{Name: "writer"}
	chain := Chain{Masters, z}
	raw := func(v any) []byte { b, _ := json.Marshal(v); return b }
	for _, tc := range []struct {
		name    string
		kind    string
		obj     any
		wantErr bool
	}{
		{"held rule", KindClusterRole, rbacv1.ClusterRole{ObjectMeta: metaNS("", "a"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}, false},
		{"unheld rule", KindClusterRole, rbacv1.ClusterRole{ObjectMeta: metaNS("", "b"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}}, true},
		{"aggregation rule without full authority", KindClusterRole, rbacv1.ClusterRole{ObjectMeta: metaNS("", "c"),
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}}}}}, true},
		{"bind a role beyond own", KindClusterRoleBinding, rbacv1.ClusterRoleBinding{ObjectMeta: metaNS("", "d"), RoleRef: rbacv1.RoleRef{Kind: KindClusterRole, Name: "cluster-admin"}}, true},
		{"bind own role", KindClusterRoleBinding, rbacv1.ClusterRoleBinding{ObjectMeta: metaNS("", "e"), RoleRef: rbacv1.RoleRef{Kind: KindClusterRole, Name: "role-writer"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := z.CheckEscalation(context.Background(), chain, writer, tc.kind, "", raw(tc.obj))
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrEscalation)) {
				t.Errorf("CheckEscalation = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}
