package filters

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
)

// AdminOnly admits only the admin credential: a client certificate verified
// against the cluster CA whose organisation includes system:masters, or the
// admin bearer token. Paths in public (health, version) are open to everyone.
// Full authentication and RBAC replace this filter in their own change.
func AdminOnly(token string, public []string, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if slices.Contains(public, r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
				if slices.Contains(r.TLS.VerifiedChains[0][0].Subject.Organization, "system:masters") {
					next.ServeHTTP(w, r)
					return
				}
				endpoints.WriteError(w, r, Logger(r.Context(), log), apierrors.NewForbidden("only members of system:masters may use this server until RBAC is enabled"))
				return
			}
			if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token != "" &&
				subtle.ConstantTimeCompare([]byte(strings.TrimSpace(bearer)), []byte(token)) == 1 {
				next.ServeHTTP(w, r)
				return
			}
			endpoints.WriteError(w, r, Logger(r.Context(), log), apierrors.NewUnauthorized(""))
		})
	}
}
