package authz

import (
	"context"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/capstan-io/capstan/auth"
)

// BenchmarkRBACAuthorize decides for a user bound in one of 200 namespaces,
// with the bootstrap roles and 400 other bindings loaded.
func BenchmarkRBACAuthorize(b *testing.B) {
	z := NewRBAC()
	for _, cr := range BootstrapClusterRoles() {
		mustPut(b, z, KindClusterRole, cr)
	}
	for _, crb := range BootstrapClusterRoleBindings() {
		mustPut(b, z, KindClusterRoleBinding, crb)
	}
	for i := range 200 {
		ns := fmt.Sprintf("ns%d", i)
		for _, who := range []string{"alice", fmt.Sprintf("user%d", i)} {
			mustPut(b, z, KindRoleBinding, rbacv1.RoleBinding{ObjectMeta: metaNS(ns, who+"-edit"),
				RoleRef: rbacv1.RoleRef{Kind: KindClusterRole, Name: "edit"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: who}}})
		}
	}
	a := attrs(auth.User{Name: "alice", Groups: []string{auth.GroupAuthenticated}}, "create", "", "configmaps", "ns150")
	b.ReportAllocs()
	for b.Loop() {
		if d, _, _ := z.Authorize(context.Background(), a); d != auth.Allow {
			b.Fatal("not allowed")
		}
	}
}
