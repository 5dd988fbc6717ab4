package authz

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/capstan-io/capstan/auth"
)

// Kinds of the objects RBAC is fed.
const (
	KindRole               = "Role"
	KindClusterRole        = "ClusterRole"
	KindRoleBinding        = "RoleBinding"
	KindClusterRoleBinding = "ClusterRoleBinding"
)

// RBAC authorizes from an in-memory copy of the rbac objects. The server feeds
// it from its watches; it never reads storage.
type RBAC struct {
	mu                  sync.RWMutex
	roles               map[string]*rbacv1.Role               // by namespace/name
	clusterRoles        map[string]*rbacv1.ClusterRole        // by name
	roleBindings        map[string]*rbacv1.RoleBinding        // by namespace/name
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding // by name
}

var _ Authorizer = (*RBAC)(nil)

// NewRBAC returns an RBAC authorizer that knows no objects yet.
func NewRBAC() *RBAC {
	return &RBAC{
		roles: map[string]*rbacv1.Role{}, clusterRoles: map[string]*rbacv1.ClusterRole{},
		roleBindings: map[string]*rbacv1.RoleBinding{}, clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{},
	}
}

// Put records one object of kind from its JSON, replacing any earlier version.
func (z *RBAC) Put(kind string, raw []byte) error {
	var meta struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return fmt.Errorf("authz: decoding %s: %w", kind, err)
	}
	key := meta.Metadata.Namespace + "/" + meta.Metadata.Name
	z.mu.Lock()
	defer z.mu.Unlock()
	var err error
	switch kind {
	case KindRole:
		var o rbacv1.Role
		if err = json.Unmarshal(raw, &o); err == nil {
			z.roles[key] = &o
		}
	case KindClusterRole:
		var o rbacv1.ClusterRole
		if err = json.Unmarshal(raw, &o); err == nil {
			z.clusterRoles[o.Name] = &o
		}
	case KindRoleBinding:
		var o rbacv1.RoleBinding
		if err = json.Unmarshal(raw, &o); err == nil {
			z.roleBindings[key] = &o
		}
	case KindClusterRoleBinding:
		var o rbacv1.ClusterRoleBinding
		if err = json.Unmarshal(raw, &o); err == nil {
			z.clusterRoleBindings[o.Name] = &o
		}
	default:
		return fmt.Errorf("authz: unknown kind %q", kind)
	}
	if err != nil {
		return fmt.Errorf("authz: decoding %s %s: %w", kind, key, err)
	}
	return nil
}

// Delete forgets one object.
func (z *RBAC) Delete(kind, namespace, name string) {
	key := namespace + "/" + name
	z.mu.Lock()
	defer z.mu.Unlock()
	switch kind {
	case KindRole:
		delete(z.roles, key)
	case KindClusterRole:
		delete(z.clusterRoles, name)
	case KindRoleBinding:
		delete(z.roleBindings, key)
	case KindClusterRoleBinding:
		delete(z.clusterRoleBindings, name)
	}
}

// Reset forgets every object of kind, before a re-list puts them back.
func (z *RBAC) Reset(kind string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	switch kind {
	case KindRole:
		clear(z.roles)
	case KindClusterRole:
		clear(z.clusterRoles)
	case KindRoleBinding:
		clear(z.roleBindings)
	case KindClusterRoleBinding:
		clear(z.clusterRoleBindings)
	}
}

// Authorize allows a if a rule bound to its user grants it.
func (z *RBAC) Authorize(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
	allowed := false
	z.visitRules(a.User, a.Namespace, func(r rbacv1.PolicyRule) bool {
		allowed = RuleAllows(r, a)
		return !allowed
	})
	if allowed {
		return auth.Allow, "", nil
	}
	return auth.NoOpinion, "", nil
}

// RulesFor returns every rule that applies to u in namespace (cluster-wide
// rules included; namespace "" means cluster-wide only).
func (z *RBAC) RulesFor(u auth.User, namespace string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	z.visitRules(u, namespace, func(r rbacv1.PolicyRule) bool { out = append(out, r); return true })
	return out
}

// visitRules calls fn with each rule bound to u in namespace until fn returns false.
func (z *RBAC) visitRules(u auth.User, namespace string, fn func(rbacv1.PolicyRule) bool) {
	z.mu.RLock()
	defer z.mu.RUnlock()
	for _, b := range z.clusterRoleBindings {
		if b.RoleRef.Kind != KindClusterRole || !subjectsMatch(b.Subjects, u, "") {
			continue
		}
		if !z.visitClusterRole(b.RoleRef.Name, fn, map[string]bool{}) {
			return
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range z.roleBindings {
		if b.Namespace != namespace || !subjectsMatch(b.Subjects, u, namespace) {
			continue
		}
		switch b.RoleRef.Kind {
		case KindClusterRole:
			if !z.visitClusterRole(b.RoleRef.Name, fn, map[string]bool{}) {
				return
			}
		case KindRole:
			if r := z.roles[namespace+"/"+b.RoleRef.Name]; r != nil {
				for _, rule := range r.Rules {
					if !fn(rule) {
						return
					}
				}
			}
		}
	}
}

// visitClusterRole visits a cluster role's rules and, for an aggregated role,
// those of every cluster role its selectors match. Callers hold z.mu.
func (z *RBAC) visitClusterRole(name string, fn func(rbacv1.PolicyRule) bool, seen map[string]bool) bool {
	if seen[name] {
		return true
	}
	seen[name] = true
	cr := z.clusterRoles[name]
	if cr == nil {
		return true
	}
	for _, rule := range cr.Rules {
		if !fn(rule) {
			return false
		}
	}
	if cr.AggregationRule == nil {
		return true
	}
	for _, ls := range cr.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&ls)
		if err != nil || sel.Empty() {
			continue
		}
		for other, o := range z.clusterRoles {
			if other != name && sel.Matches(labels.Set(o.Labels)) {
				if !z.visitClusterRole(other, fn, seen) {
					return false
				}
			}
		}
	}
	return true
}

// ClusterRoleRules returns a cluster role's effective rules, aggregation included.
func (z *RBAC) ClusterRoleRules(name string) ([]rbacv1.PolicyRule, bool) {
	z.mu.RLock()
	defer z.mu.RUnlock()
	if z.clusterRoles[name] == nil {
		return nil, false
	}
	var out []rbacv1.PolicyRule
	z.visitClusterRole(name, func(r rbacv1.PolicyRule) bool { out = append(out, r); return true }, map[string]bool{})
	return out, true
}

// RoleRules returns a namespaced role's rules.
func (z *RBAC) RoleRules(namespace, name string) ([]rbacv1.PolicyRule, bool) {
	z.mu.RLock()
	defer z.mu.RUnlock()
	r := z.roles[namespace+"/"+name]
	if r == nil {
		return nil, false
	}
	return r.Rules, true
}

// subjectsMatch reports whether any subject names u. bindingNS is the
// namespace of a RoleBinding, the default for ServiceAccount subjects.
func subjectsMatch(subjects []rbacv1.Subject, u auth.User, bindingNS string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			if s.Name == u.Name {
				return true
			}
		case rbacv1.GroupKind:
			if u.InGroup(s.Name) {
				return true
			}
		case rbacv1.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = bindingNS
			}
			if ns != "" && u.Name == auth.ServiceAccountPrefix+ns+":"+s.Name {
				return true
			}
		}
	}
	return false
}
