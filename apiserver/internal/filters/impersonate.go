package filters

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/auth"
	"github.com/capstan-io/capstan/auth/authz"
)

// Impersonation headers, as kubectl --as/--as-group/--as-uid send them.
const (
	headerImpersonateUser  = "Impersonate-User"
	headerImpersonateGroup = "Impersonate-Group"
	headerImpersonateUID   = "Impersonate-Uid"
)

// Impersonate lets the authenticated user act as another user, groups and
// uid when z allows the verb "impersonate" on each (users, groups,
// serviceaccounts, uids), as in Kubernetes. The request then carries the
// impersonated user; Audit still records the real one. It runs after Authenticate.
func Impersonate(z authz.Authorizer, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name := r.Header.Get(headerImpersonateUser)
			groups := r.Header.Values(headerImpersonateGroup)
			uid := r.Header.Get(headerImpersonateUID)
			if name == "" && len(groups) == 0 && uid == "" {
				next.ServeHTTP(w, r)
				return
			}
			l := Logger(r.Context(), log)
			if name == "" {
				endpoints.WriteError(w, r, l, apierrors.NewBadRequest("impersonating groups or a uid requires impersonating a user"))
				return
			}
			u, _ := auth.UserFrom(r.Context())
			target := auth.User{Name: name, UID: uid}
			checks := []auth.Attributes{{Resource: "users", Name: name}}
			if ns, sa, ok := strings.Cut(strings.TrimPrefix(name, auth.ServiceAccountPrefix), ":"); ok && strings.HasPrefix(name, auth.ServiceAccountPrefix) {
				checks[0] = auth.Attributes{Resource: "serviceaccounts", Namespace: ns, Name: sa}
				target.Groups = append(target.Groups, auth.GroupServiceAccounts, auth.GroupServiceAccounts+":"+ns)
			}
			for _, g := range groups {
				checks = append(checks, auth.Attributes{Resource: "groups", Name: g})
				target.Groups = append(target.Groups, g)
			}
			if uid != "" {
				checks = append(checks, auth.Attributes{APIGroup: "authentication.k8s.io", Resource: "uids", Name: uid})
			}
			for _, a := range checks {
				a.User, a.Verb, a.ResourceRequest = u, "impersonate", true
				d, reason, err := z.Authorize(r.Context(), a)
				if err != nil {
					endpoints.WriteError(w, r, l, err)
					return
				}
				if d != auth.Allow {
					endpoints.WriteError(w, r, l, forbidden(a, reason))
					return
				}
			}
			if name != auth.UserAnonymous && !slices.Contains(target.Groups, auth.GroupAuthenticated) {
				target.Groups = append(target.Groups, auth.GroupAuthenticated)
			}
			l.DebugContext(r.Context(), "impersonating", "user", u.Name, "as", fmt.Sprintf("%s %v", target.Name, target.Groups))
			r = r.Clone(auth.WithUser(r.Context(), target))
			for _, h := range []string{headerImpersonateUser, headerImpersonateGroup, headerImpersonateUID} {
				r.Header.Del(h)
			}
			next.ServeHTTP(w, r)
		})
	}
}
