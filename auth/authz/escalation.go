package authz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/capstan-io/capstan/auth"
)

// ErrEscalation marks a role or binding that would grant more than its author holds.
var ErrEscalation = errors.New("authz: privilege escalation")

const rbacGroup = "rbac.authorization.k8s.io"

// fullAuthority is every permission: what writing an aggregated cluster role takes.
var fullAuthority = []rbacv1.PolicyRule{
	{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
	{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}},
}

// CheckEscalation refuses a create or update of a role or binding (kind, JSON
// raw, in namespace, "" for cluster-scoped kinds) by u that grants
// permissions u does not hold, unless u may "escalate" (roles) or "bind"
// (bindings) per z, the full authorizer chain.
func (r *RBAC) CheckEscalation(ctx context.Context, z Authorizer, u auth.User, kind, namespace string, raw []byte) error {
	if u.InGroup(auth.GroupMasters) {
		return nil
	}
	var obj struct {
		Metadata        struct{ Name string }   `json:"metadata"`
		Rules           []rbacv1.PolicyRule     `json:"rules"`
		RoleRef         rbacv1.RoleRef          `json:"roleRef"`
		AggregationRule *rbacv1.AggregationRule `json:"aggregationRule"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("authz: decoding %s: %w", kind, err)
	}
	var rules []rbacv1.PolicyRule
	check := auth.Attributes{User: u, ResourceRequest: true, APIGroup: rbacGroup, Namespace: namespace}
	switch kind {
	case KindRole, KindClusterRole:
		check.Verb, check.Name, check.Resource = "escalate", obj.Metadata.Name, strings.ToLower(kind)+"s"
		rules = obj.Rules
		if obj.AggregationRule != nil {
			// An aggregated role gathers rules from roles its author may not
			// hold; as in Kubernetes, only full authority may write one.
			rules = fullAuthority
		}
	case KindRoleBinding, KindClusterRoleBinding:
		check.Verb, check.Name, check.Resource = "bind", obj.RoleRef.Name, strings.ToLower(obj.RoleRef.Kind)+"s"
		if obj.RoleRef.Kind == KindClusterRole {
			check.Namespace = namespace // bind on a cluster role may be granted per namespace
			rules, _ = r.ClusterRoleRules(obj.RoleRef.Name)
		} else {
			rules, _ = r.RoleRules(namespace, obj.RoleRef.Name)
		}
	default:
		return nil
	}
	if d, _, err := z.Authorize(ctx, check); err == nil && d == auth.Allow {
		return nil
	}
	owner := r.RulesFor(u, namespace)
	var missing []string
	for _, rule := range rules {
		for _, m := range Covers(owner, rule) {
			missing = append(missing, describeRule(m))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		ErrEscalation, u.Name, u.Groups, strings.Join(missing, "\n"))
}

func describeRule(r rbacv1.PolicyRule) string {
	if len(r.NonResourceURLs) > 0 {
		return fmt.Sprintf("{NonResourceURLs:%q, Verbs:%q}", r.NonResourceURLs, r.Verbs)
	}
	s := fmt.Sprintf("{APIGroups:%q, Resources:%q", r.APIGroups, r.Resources)
	if len(r.ResourceNames) > 0 {
		s += fmt.Sprintf(", ResourceNames:%q", r.ResourceNames)
	}
	return s + fmt.Sprintf(", Verbs:%q}", r.Verbs)
}
