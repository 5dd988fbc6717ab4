package authz

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/capstan-io/capstan/auth"
)

// RuleAllows reports whether rule grants a, with Kubernetes semantics: "*"
// matches any verb, group or resource; "*/sub" any resource's subresource sub;
// "res/*" every subresource of res; empty resourceNames any name; a
// nonResourceURL ending in "*" is a prefix.
func RuleAllows(rule rbacv1.PolicyRule, a auth.Attributes) bool {
	if !hasOrStar(rule.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		for _, u := range rule.NonResourceURLs {
			if u == "*" || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimSuffix(u, "*"))) {
				return true
			}
		}
		return false
	}
	if !hasOrStar(rule.APIGroups, a.APIGroup) || !resourceMatches(rule.Resources, a.Resource, a.Subresource) {
		return false
	}
	return len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name)
}

func hasOrStar(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

func resourceMatches(list []string, resource, sub string) bool {
	combined := resource
	if sub != "" {
		combined += "/" + sub
	}
	for _, r := range list {
		switch {
		case r == "*" || r == combined:
			return true
		case sub != "" && (r == "*/"+sub || r == resource+"/*"):
			return true
		}
	}
	return false
}

// Covers reports whether owner grants everything rule grants, comparing
// literally as Kubernetes does: a "*" in rule is covered only by a "*" in owner.
// It returns the atomic rules owner does not cover.
func Covers(owner []rbacv1.PolicyRule, rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var missing []rbacv1.PolicyRule
	for _, atom := range breakdown(rule) {
		if !slices.ContainsFunc(owner, func(o rbacv1.PolicyRule) bool { return ruleCovers(o, atom) }) {
			missing = append(missing, atom)
		}
	}
	return missing
}

// breakdown splits rule into rules of one verb, group, resource and name each.
func breakdown(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, v := range rule.Verbs {
		for _, u := range rule.NonResourceURLs {
			out = append(out, rbacv1.PolicyRule{Verbs: []string{v}, NonResourceURLs: []string{u}})
		}
		for _, g := range rule.APIGroups {
			for _, r := range rule.Resources {
				if len(rule.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{Verbs: []string{v}, APIGroups: []string{g}, Resources: []string{r}})
				}
				for _, n := range rule.ResourceNames {
					out = append(out, rbacv1.PolicyRule{Verbs: []string{v}, APIGroups: []string{g}, Resources: []string{r}, ResourceNames: []string{n}})
				}
			}
		}
	}
	return out
}

// ruleCovers reports whether owner covers the atomic rule atom.
func ruleCovers(owner, atom rbacv1.PolicyRule) bool {
	if !hasOrStar(owner.Verbs, atom.Verbs[0]) {
		return false
	}
	if len(atom.NonResourceURLs) > 0 {
		u := atom.NonResourceURLs[0]
		for _, o := range owner.NonResourceURLs {
			if o == "*" || o == u || (strings.HasSuffix(o, "*") && strings.HasPrefix(u, strings.TrimSuffix(o, "*"))) {
				return true
			}
		}
		return false
	}
	if !hasOrStar(owner.APIGroups, atom.APIGroups[0]) {
		return false
	}
	res, sub, _ := strings.Cut(atom.Resources[0], "/")
	if !slices.Contains(owner.Resources, atom.Resources[0]) && !resourceMatches(owner.Resources, res, sub) {
		return false
	}
	if len(owner.ResourceNames) == 0 {
		return true
	}
	return len(atom.ResourceNames) == 1 && slices.Contains(owner.ResourceNames, atom.ResourceNames[0])
}
