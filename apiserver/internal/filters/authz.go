package filters

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/auth"
	"github.com/capstan-io/capstan/auth/authz"
)

// Authorize lets a request through only if z allows it; otherwise it is 403
// with Kubernetes' wording. Paths in public (health, version) are always
// allowed. It runs after Authenticate.
func Authorize(z authz.Authorizer, public []string, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if slices.Contains(public, r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			a := Attributes(r)
			d, reason, err := z.Authorize(r.Context(), a)
			if err != nil {
				endpoints.WriteError(w, r, Logger(r.Context(), log), err)
				return
			}
			if d != auth.Allow {
				endpoints.WriteError(w, r, Logger(r.Context(), log), forbidden(a, reason))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// forbidden is the 403 Status of a refused request, with details as Kubernetes sends them.
func forbidden(a auth.Attributes, reason string) *apierrors.StatusError {
	se := apierrors.NewForbidden(authz.ForbiddenMessage(a, reason))
	if a.ResourceRequest {
		se.Status.Details = &api.StatusDetails{Name: a.Name, Group: a.APIGroup, Kind: a.Resource}
	}
	return se
}

// Attributes describes r for the authorizer: a resource request for paths
// under /api and /apis that name a resource, a non-resource request otherwise.
func Attributes(r *http.Request) auth.Attributes {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		u = auth.Anonymous()
	}
	a := auth.Attributes{User: u}
	info, err := endpoints.ParseRequestInfo(r)
	if err != nil || info.Resource == "" {
		a.Verb, a.Path = strings.ToLower(r.Method), r.URL.Path
		return a
	}
	a.ResourceRequest = true
	a.Verb, a.APIGroup, a.APIVersion = info.Verb, info.Group, info.Version
	a.Namespace, a.Resource, a.Subresource, a.Name = info.Namespace, info.Resource, info.Subresource, info.Name
	if a.Resource == "namespaces" && a.Name != "" {
		a.Namespace = a.Name // as Kubernetes: a namespace's RoleBindings may grant access to it
	}
	if (a.Verb == "list" || a.Verb == "watch") && a.Name == "" {
		// A list or watch of one object by name is authorized as that object, as in Kubernetes.
		if n, ok := strings.CutPrefix(r.URL.Query().Get("fieldSelector"), "metadata.name="); ok && !strings.ContainsAny(n, ",=!") {
			a.Name = n
		}
	}
	return a
}
