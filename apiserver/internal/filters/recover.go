package filters

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
)

// Recover turns a panic in a handler into a 500 Status.
func Recover(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					log.ErrorContext(r.Context(), "panic serving request", "panic", v, "stack", string(debug.Stack()))
					endpoints.WriteError(w, r, log, apierrors.NewInternalError(fmt.Errorf("%v", v)))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}
