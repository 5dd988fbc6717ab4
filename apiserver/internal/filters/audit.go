package filters

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/capstan-io/capstan/auth"
)

// auditRecord is one line of the audit log. Request and response bodies are never recorded.
type auditRecord struct {
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Groups    []string  `json:"groups,omitempty"`
	Verb      string    `json:"verb"`
	Resource  string    `json:"resource,omitempty"`
	Namespace string    `json:"namespace,omitempty"`
	Name      string    `json:"name,omitempty"`
	Path      string    `json:"path,omitempty"`
	Code      int       `json:"code"`
	LatencyMS float64   `json:"latencyMs"`
	SourceIP  string    `json:"sourceIP"`
}

// Audit writes one JSON line per request to w once it completes: who, what,
// the response code and latency. Writes are serialised; a failed write is
// logged and the request is unaffected. It runs before Authenticate, so
// requests refused with 401 are audited too (with an empty user).
func Audit(w io.Writer, log *slog.Logger) func(http.Handler) http.Handler {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &statusRecorder{ResponseWriter: rw}
			var u auth.User
			ctx := context.WithValue(r.Context(), userSlotKey{}, &u)
			next.ServeHTTP(rec, r.WithContext(ctx))
			if rec.code == 0 {
				rec.code = http.StatusOK
			}
			a := Attributes(r.WithContext(auth.WithUser(ctx, u)))
			line := auditRecord{
				Time: start.UTC(), User: a.User.Name, Groups: a.User.Groups, Verb: a.Verb,
				Namespace: a.Namespace, Name: a.Name, Code: rec.code,
				LatencyMS: float64(time.Since(start).Microseconds()) / 1000,
			}
			if a.ResourceRequest {
				line.Resource = a.Resource
				if a.Subresource != "" {
					line.Resource += "/" + a.Subresource
				}
			} else {
				line.Path = a.Path
			}
			line.SourceIP, _, _ = net.SplitHostPort(r.RemoteAddr)
			mu.Lock()
			err := enc.Encode(line)
			mu.Unlock()
			if err != nil {
				Logger(r.Context(), log).Error("writing audit log", "err", err)
			}
		})
	}
}
