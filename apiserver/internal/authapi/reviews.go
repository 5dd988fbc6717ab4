package authapi

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/auth"
)

const (
	authnVersion = "authentication.k8s.io/v1"
	authzVersion = "authorization.k8s.io/v1"
)

// TokenReview serves POST /apis/authentication.k8s.io/v1/tokenreviews.
func (h *Handler) TokenReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var req struct {
		Metadata map[string]any `json:"metadata"`
		Spec     struct {
			Token     string   `json:"token"`
			Audiences []string `json:"audiences"`
		} `json:"spec"`
	}
	if err := decode(r, "TokenReview", &req); err != nil {
		return nil, err
	}
	status := map[string]any{"authenticated": false}
	u, ok, err := h.cfg.Tokens.AuthenticateToken(r.Context(), req.Spec.Token)
	switch {
	case err != nil:
		status["error"] = "[invalid bearer token]"
	case ok:
		if !slices.Contains(u.Groups, auth.GroupAuthenticated) {
			u.Groups = append(slices.Clip(u.Groups), auth.GroupAuthenticated)
		}
		status["authenticated"], status["user"] = true, toUserInfo(u)
		status["audiences"] = req.Spec.Audiences
	}
	out := stamp(authnVersion, "TokenReview", req.Metadata)
	out["spec"] = map[string]any{"audiences": req.Spec.Audiences}
	out["status"] = status
	return endpoints.Created(out), nil
}

// SelfSubjectReview serves POST /apis/authentication.k8s.io/v1/selfsubjectreviews (kubectl auth whoami).
func (h *Handler) SelfSubjectReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var req struct {
		Metadata map[string]any `json:"metadata"`
	}
	if err := decode(r, "SelfSubjectReview", &req); err != nil {
		return nil, err
	}
	out := stamp(authnVersion, "SelfSubjectReview", req.Metadata)
	out["status"] = map[string]any{"userInfo": toUserInfo(requester(r))}
	return endpoints.Created(out), nil
}

type resourceAttributes struct {
	Namespace   string `json:"namespace,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Group       string `json:"group,omitempty"`
	Version     string `json:"version,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
}

type nonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

type accessReview struct {
	Metadata map[string]any `json:"metadata"`
	Spec     struct {
		ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty"`
		NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty"`
		User                  string                 `json:"user,omitempty"`
		Groups                []string               `json:"groups,omitempty"`
		Extra                 map[string][]string    `json:"extra,omitempty"`
		UID                   string                 `json:"uid,omitempty"`
	} `json:"spec"`
}

// SubjectAccessReview serves POST /apis/authorization.k8s.io/v1/subjectaccessreviews.
func (h *Handler) SubjectAccessReview(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.review(r, "SubjectAccessReview", "", false)
}

// LocalSubjectAccessReview serves POST .../namespaces/{namespace}/localsubjectaccessreviews.
func (h *Handler) LocalSubjectAccessReview(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.review(r, "LocalSubjectAccessReview", chi.URLParam(r, "namespace"), false)
}

// SelfSubjectAccessReview serves POST .../selfsubjectaccessreviews (kubectl auth can-i).
func (h *Handler) SelfSubjectAccessReview(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.review(r, "SelfSubjectAccessReview", "", true)
}

func (h *Handler) review(r *http.Request, kind, namespace string, self bool) (any, error) {
	var req accessReview
	if err := decode(r, kind, &req); err != nil {
		return nil, err
	}
	s := req.Spec
	a := auth.Attributes{User: auth.User{Name: s.User, UID: s.UID, Groups: s.Groups, Extra: s.Extra}}
	if self {
		a.User = requester(r)
	} else if s.User == "" && len(s.Groups) == 0 {
		return nil, invalidSpec(kind, "spec.user", "at least one of user or group must be specified")
	}
	switch {
	case s.ResourceAttributes != nil:
		ra := s.ResourceAttributes
		if namespace != "" && ra.Namespace != namespace {
			return nil, invalidSpec(kind, "spec.resourceAttributes.namespace", "must match metadata.namespace")
		}
		a.ResourceRequest = true
		a.Verb, a.Namespace, a.APIGroup, a.APIVersion = ra.Verb, ra.Namespace, ra.Group, ra.Version
		a.Resource, a.Subresource, a.Name = ra.Resource, ra.Subresource, ra.Name
	case s.NonResourceAttributes != nil:
		a.Verb, a.Path = s.NonResourceAttributes.Verb, s.NonResourceAttributes.Path
	default:
		return nil, invalidSpec(kind, "spec.resourceAttributes", "exactly one of nonResourceAttributes or resourceAttributes must be specified")
	}
	d, reason, err := h.cfg.Authorizer.Authorize(r.Context(), a)
	if err != nil {
		return nil, err
	}
	status := map[string]any{"allowed": d == auth.Allow}
	if d == auth.Deny {
		status["denied"] = true
	}
	if reason != "" {
		status["reason"] = reason
	} else if d == auth.Allow {
		status["reason"] = "allowed by RBAC"
	}
	out := stamp(authzVersion, kind, req.Metadata)
	out["spec"] = req.Spec
	out["status"] = status
	return endpoints.Created(out), nil
}

// SelfSubjectRulesReview serves POST .../selfsubjectrulesreviews (kubectl auth can-i --list).
func (h *Handler) SelfSubjectRulesReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var req struct {
		Metadata map[string]any `json:"metadata"`
		Spec     struct {
			Namespace string `json:"namespace"`
		} `json:"spec"`
	}
	if err := decode(r, "SelfSubjectRulesReview", &req); err != nil {
		return nil, err
	}
	u := requester(r)
	var rules []rbacv1.PolicyRule
	if u.InGroup(auth.GroupMasters) {
		rules = []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}, {NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}}
	}
	rules = append(rules, h.cfg.RBAC.RulesFor(u, req.Spec.Namespace)...)
	resource, nonResource := []map[string]any{}, []map[string]any{}
	for _, rule := range rules {
		if len(rule.NonResourceURLs) > 0 {
			nonResource = append(nonResource, map[string]any{"verbs": rule.Verbs, "nonResourceURLs": rule.NonResourceURLs})
			continue
		}
		m := map[string]any{"verbs": rule.Verbs, "apiGroups": rule.APIGroups, "resources": rule.Resources}
		if len(rule.ResourceNames) > 0 {
			m["resourceNames"] = rule.ResourceNames
		}
		resource = append(resource, m)
	}
	out := stamp(authzVersion, "SelfSubjectRulesReview", req.Metadata)
	out["spec"] = req.Spec
	out["status"] = map[string]any{"resourceRules": resource, "nonResourceRules": nonResource, "incomplete": false}
	return endpoints.Created(out), nil
}

func invalidSpec(kind, field, msg string) error {
	return apierrors.NewInvalid(kind, "authorization.k8s.io", "", []apierrors.FieldError{{Field: field, Reason: "FieldValueInvalid", Message: msg}})
}
