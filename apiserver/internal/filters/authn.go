package filters

import (
	"log/slog"
	"net/http"
	"slices"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/auth"
	"github.com/capstan-io/capstan/auth/authn"
)

// Authenticate finds who each request is from and stores the user in its
// context (auth.UserFrom). An invalid credential is 401. A request without
// credentials is anonymous (system:anonymous in system:unauthenticated) when
// anonymous is set or its path is in public; otherwise it is 401.
func Authenticate(a authn.Authenticator, public []string, anonymous bool, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, ok, err := a.Authenticate(r)
			if err != nil {
				Logger(r.Context(), log).DebugContext(r.Context(), "authentication failed", "err", err)
				endpoints.WriteError(w, r, Logger(r.Context(), log), apierrors.NewUnauthorized(""))
				return
			}
			if !ok {
				if !anonymous && !slices.Contains(public, r.URL.Path) {
					endpoints.WriteError(w, r, Logger(r.Context(), log), apierrors.NewUnauthorized(""))
					return
				}
				u = auth.Anonymous()
			}
			if slot, ok := r.Context().Value(userSlotKey{}).(*auth.User); ok {
				*slot = u // for Audit, which runs before this filter
			}
			next.ServeHTTP(w, r.WithContext(auth.WithUser(r.Context(), u)))
		})
	}
}

// userSlotKey keys the *auth.User that Audit leaves in the context for
// Authenticate to fill, so refused requests are audited with what is known.
type userSlotKey struct{}
