package apiserver

import (
	"io"
	"net/http"
	"net/http/pprof"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/apiserver/internal/filters"
	"github.com/capstan-io/capstan/apiserver/internal/metrics"
	"github.com/capstan-io/capstan/openapi"
	"github.com/capstan-io/capstan/storage"
)

// publicPaths are served without credentials, as in Kubernetes.
var publicPaths = []string{"/healthz", "/livez", "/readyz", "/version"}

// routes is the hub's whole HTTP surface, in one list.
func (s *Server) routes(store storage.Interface, hubs *hubSet, ns *endpoints.NamespaceCache, m *metrics.Metrics, sec *authStack, audit io.Writer) http.Handler {
	h := endpoints.New(endpoints.Config{
		Store: store, Registry: s.reg, Hubs: hubs, Namespaces: ns, Log: s.log, BookmarkEvery: s.cfg.BookmarkInterval,
		NodeTransport: s.nodeTransport(),
		WatchOpened:   func(r *api.Resource) { m.Watches.WithLabelValues(r.GroupResource()).Inc() },
		WatchClosed:   func(r *api.Resource) { m.Watches.WithLabelValues(r.GroupResource()).Dec() },
		CheckWrite:    sec.checkWrite,
		Admission:     s.admission,
	})
	authAPI := sec.api(store)
	wrap := func(f endpoints.HandlerFunc) http.Handler { return endpoints.Wrap(s.log, f) }
	health := newHealth(store)

	r := chi.NewRouter()
	r.Use(filters.Recover(s.log), filters.RequestLog(s.log, m))
	if audit != nil {
		r.Use(filters.Audit(audit, s.log))
	}
	r.Use(filters.Authenticate(sec.authn, publicPaths, s.cfg.Auth.AnonymousAuth, s.log),
		filters.Impersonate(sec.authz, s.log), filters.Authorize(sec.authz, publicPaths, s.log),
		filters.MaxInFlight(s.cfg.MaxRequestsInflight, s.cfg.MaxMutatingRequestsInflight, s.log, m))
	r.NotFound(wrap(notFound).ServeHTTP)
	r.MethodNotAllowed(wrap(methodNotAllowed).ServeHTTP)

	r.Get("/healthz", health.live)
	r.Get("/livez", health.live)
	r.Get("/readyz", health.ready)
	r.Method(http.MethodGet, "/version", wrap(version))
	r.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	r.HandleFunc("/debug/pprof/*", pprof.Index)
	r.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	r.HandleFunc("/debug/pprof/profile", pprof.Profile)
	r.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	r.HandleFunc("/debug/pprof/trace", pprof.Trace)

	oapi := openapi.NewHandler(s.reg)
	r.Method(http.MethodGet, "/openapi/v3", oapi)
	r.Method(http.MethodGet, "/openapi/v3/*", oapi)
	r.Get("/openapi/v2", oapi.ServeV2)
	r.Method(http.MethodGet, "/api", wrap(h.APIVersions))
	r.Method(http.MethodGet, "/api/v1", wrap(h.CoreResources))
	r.Method(http.MethodGet, "/apis", wrap(h.APIGroupList))
	r.Method(http.MethodGet, "/apis/{group}", wrap(h.APIGroup))
	r.Method(http.MethodGet, "/apis/{group}/{version}", wrap(h.GroupResources))
	r.Method(http.MethodPost, "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", wrap(authAPI.CreateToken))
	r.Method(http.MethodPost, "/apis/authentication.k8s.io/v1/tokenreviews", wrap(authAPI.TokenReview))
	r.Method(http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", wrap(authAPI.SelfSubjectReview))
	r.Method(http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", wrap(authAPI.SubjectAccessReview))
	r.Method(http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", wrap(authAPI.SelfSubjectAccessReview))
	r.Method(http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", wrap(authAPI.SelfSubjectRulesReview))
	r.Method(http.MethodPost, "/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews", wrap(authAPI.LocalSubjectAccessReview))
	r.Handle("/api/v1/*", wrap(h.ServeResource))
	r.Handle("/apis/{group}/{version}/*", wrap(h.ServeResource))
	return r
}
