package filters

import (
	"log/slog"
	"net/http"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/apiserver/internal/metrics"
)

// MaxInFlight answers 429 with Retry-After when more than readOnly non-mutating or
// mutating requests are being served. Watches are long-running and not counted.
func MaxInFlight(readOnly, mutating int, log *slog.Logger, m *metrics.Metrics) func(http.Handler) http.Handler {
	ro, mu := make(chan struct{}, max(readOnly, 1)), make(chan struct{}, max(mutating, 1))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isLongRunning(r) {
				next.ServeHTTP(w, r)
				return
			}
			sem, kind := ro, "readOnly"
			switch r.Method {
			case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
				sem, kind = mu, "mutating"
			}
			select {
			case sem <- struct{}{}:
			default:
				endpoints.WriteError(w, r, Logger(r.Context(), log), apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
				return
			}
			g := m.Inflight.WithLabelValues(kind)
			g.Inc()
			defer func() { <-sem; g.Dec() }()
			next.ServeHTTP(w, r)
		})
	}
}

// isLongRunning reports watches and followed logs, which hold a connection for minutes.
func isLongRunning(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	info, err := endpoints.ParseRequestInfo(r)
	return err == nil && (info.Verb == "watch" || info.Subresource == "log" && r.URL.Query().Get("follow") == "true")
}
