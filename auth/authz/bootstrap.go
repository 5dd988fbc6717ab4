package authz

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capstan-io/capstan/auth"
)

// Names of the agents' identities; their client certificates carry these users.
const (
	UserScheduler         = "system:kube-scheduler"
	UserControllerManager = "system:kube-controller-manager"
)

func rule(groups, resources, verbs []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs}
}

var (
	core      = []string{""}
	read      = []string{"get", "list", "watch"}
	write     = []string{"create", "update", "patch", "delete", "deletecollection"}
	readWrite = append(append([]string{}, read...), write...)
)

func clusterRole(name string, lbls map[string]string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	if lbls == nil {
		lbls = map[string]string{}
	}
	lbls["kubernetes.io/bootstrapping"] = "rbac-defaults"
	return rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: KindClusterRole},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls, Annotations: map[string]string{"rbac.authorization.kubernetes.io/autoupdate": "true"}},
		Rules:      rules,
	}
}

func aggregated(name, label string) rbacv1.ClusterRole {
	cr := clusterRole(name, nil)
	cr.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}
	return cr
}

// BootstrapClusterRoles are the cluster roles every cluster starts with, named as in Kubernetes.
// admin, edit and view aggregate the rules of roles labelled
// rbac.authorization.k8s.io/aggregate-to-<name>; the aggregate-to-* roles hold the built-in kinds.
func BootstrapClusterRoles() []rbacv1.ClusterRole {
	workloads := []string{"pods", "pods/log", "pods/status", "services", "services/status", "endpoints", "configmaps", "events", "serviceaccounts", "persistentvolumeclaims"}
	apps := []string{"deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status"}
	return withAggregatedRules([]rbacv1.ClusterRole{
		clusterRole("cluster-admin", nil,
			rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
			rbacv1.PolicyRule{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}),
		aggregated("admin", "rbac.authorization.k8s.io/aggregate-to-admin"),
		aggregated("edit", "rbac.authorization.k8s.io/aggregate-to-edit"),
		aggregated("view", "rbac.authorization.k8s.io/aggregate-to-view"),
		clusterRole("system:aggregate-to-admin", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"},
			rule([]string{"rbac.authorization.k8s.io"}, []string{"roles", "rolebindings"}, readWrite),
			rule([]string{"authorization.k8s.io"}, []string{"localsubjectaccessreviews"}, []string{"create"})),
		clusterRole("system:aggregate-to-edit", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true"},
			rule(core, append(append([]string{}, workloads...), "secrets", "serviceaccounts/token"), readWrite),
			rule([]string{"apps"}, apps, readWrite),
			rule([]string{"coordination.k8s.io"}, []string{"leases"}, readWrite)),
		clusterRole("system:aggregate-to-view", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true", "rbac.authorization.k8s.io/aggregate-to-view": "true"},
			rule(core, append(append([]string{}, workloads...), "namespaces", "namespaces/status"), read),
			rule([]string{"apps"}, apps, read),
			rule([]string{"coordination.k8s.io"}, []string{"leases"}, read)),
		clusterRole("system:basic-user", nil,
			rule([]string{"authorization.k8s.io"}, []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, []string{"create"}),
			rule([]string{"authentication.k8s.io"}, []string{"selfsubjectreviews"}, []string{"create"})),
		clusterRole("system:discovery", nil,
			rbacv1.PolicyRule{NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/readyz", "/version", "/version/", "/openapi", "/openapi/*"}, Verbs: []string{"get"}}),
		clusterRole("system:public-info-viewer", nil,
			rbacv1.PolicyRule{NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}, Verbs: []string{"get"}}),
		clusterRole("system:kube-scheduler", nil,
			rule(core, []string{"pods", "nodes", "namespaces"}, read),
			rule(core, []string{"pods/binding", "bindings"}, []string{"create"}),
			rule(core, []string{"pods/status"}, []string{"patch", "update"}),
			rule(core, []string{"events"}, []string{"create", "patch", "update"}),
			rule([]string{"coordination.k8s.io"}, []string{"leases"}, []string{"create", "get", "update"})),
		clusterRole("system:kube-controller-manager", nil,
			rule([]string{"*"}, []string{"*"}, readWrite),
			rule(core, []string{"serviceaccounts/token"}, []string{"create"})),
		clusterRole("system:node", nil,
			rule(core, []string{"nodes", "nodes/status"}, []string{"create", "get", "list", "watch", "update", "patch"}),
			rule(core, []string{"pods"}, []string{"get", "list", "watch", "create", "delete"}),
			rule(core, []string{"pods/status"}, []string{"update", "patch"}),
			rule(core, []string{"secrets", "configmaps"}, []string{"get"}),
			rule(core, []string{"events"}, []string{"create", "patch", "update"}),
			rule(core, []string{"services", "endpoints"}, read),
			rule([]string{"coordination.k8s.io"}, []string{"leases"}, []string{"create", "get", "update", "patch", "delete"})),
	})
}

// withAggregatedRules fills the rules of each aggregated role from the roles its
// selectors match, as Kubernetes' aggregation controller would, so `kubectl
// describe clusterrole edit` shows them. Roles labelled later still count:
// RBAC aggregates in memory when it authorizes.
func withAggregatedRules(roles []rbacv1.ClusterRole) []rbacv1.ClusterRole {
	for i := range roles {
		ar := roles[i].AggregationRule
		if ar == nil {
			continue
		}
		for _, sel := range ar.ClusterRoleSelectors {
			for _, other := range roles {
				if other.AggregationRule == nil && labelsMatch(sel.MatchLabels, other.Labels) {
					roles[i].Rules = append(roles[i].Rules, other.Rules...)
				}
			}
		}
	}
	return roles
}

func labelsMatch(want, have map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return len(want) > 0
}

func clusterRoleBinding(name, role string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: KindClusterRoleBinding},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
			Annotations: map[string]string{"rbac.authorization.kubernetes.io/autoupdate": "true"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: KindClusterRole, Name: role},
		Subjects: subjects,
	}
}

// BootstrapClusterRoleBindings bind the bootstrap roles as Kubernetes does.
// system:node is deliberately unbound: nodes are authorized by NodeRestriction.
func BootstrapClusterRoleBindings() []rbacv1.ClusterRoleBinding {
	group := func(n string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: "rbac.authorization.k8s.io", Name: n}
	}
	user := func(n string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: "rbac.authorization.k8s.io", Name: n}
	}
	return []rbacv1.ClusterRoleBinding{
		clusterRoleBinding("cluster-admin", "cluster-admin", group(auth.GroupMasters)),
		clusterRoleBinding("system:basic-user", "system:basic-user", group(auth.GroupAuthenticated)),
		clusterRoleBinding("system:discovery", "system:discovery", group(auth.GroupAuthenticated)),
		clusterRoleBinding("system:public-info-viewer", "system:public-info-viewer", group(auth.GroupAuthenticated), group(auth.GroupUnauthenticated)),
		clusterRoleBinding("system:kube-scheduler", "system:kube-scheduler", user(UserScheduler)),
		clusterRoleBinding("system:kube-controller-manager", "system:kube-controller-manager", user(UserControllerManager)),
		clusterRoleBinding("system:node", "system:node"),
	}
}
