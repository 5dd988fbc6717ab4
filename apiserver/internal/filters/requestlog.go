package filters

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/apiserver/internal/metrics"
)

// Log keys used across the hub.
const (
	KeyRequestID = "request_id"
	KeyVerb      = "verb"
	KeyResource  = "resource"
	KeyCode      = "code"
)

type loggerKey struct{}

// Logger returns the request-scoped logger stored by RequestLog.
func Logger(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return fallback
}

// statusRecorder remembers the response code. Unwrap lets http.ResponseController flush through it.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// RequestLog gives every request an id (X-Request-Id, kept if the client sent one),
// a logger carrying it, an access log line and request metrics.
func RequestLog(log *slog.Logger, m *metrics.Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get("X-Request-Id")
			if id == "" {
				var b [8]byte
				rand.Read(b[:])
				id = hex.EncodeToString(b[:])
			}
			w.Header().Set("X-Request-Id", id)
			info := &endpoints.RequestInfo{}
			l := log.With(KeyRequestID, id)
			ctx := context.WithValue(endpoints.WithRequestInfo(r.Context(), info), loggerKey{}, l)
			rec := &statusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r.WithContext(ctx))
			if rec.code == 0 {
				rec.code = http.StatusOK
			}
			verb, resource := info.Verb, info.Resource
			if resource == "" {
				verb, resource = r.Method, r.URL.Path
				if len(resource) > 64 {
					resource = resource[:64]
				}
			} else if info.Subresource != "" {
				resource += "/" + info.Subresource
			}
			d := time.Since(start)
			m.Requests.WithLabelValues(verb, resource, strconv.Itoa(rec.code)).Inc()
			if verb != "watch" {
				m.Latency.WithLabelValues(verb, resource).Observe(d.Seconds())
			}
			level := slog.LevelDebug
			if rec.code >= 500 {
				level = slog.LevelError
			}
			l.Log(ctx, level, "request", "method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery, KeyVerb, verb, KeyResource, resource,
				KeyCode, rec.code, "duration", d, "remote", r.RemoteAddr)
		})
	}
}
