package endpoints

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/apiserver/internal/registry"
	"github.com/capstan-io/capstan/storage"
)

// Hubs finds the watch fan-out of a resource.
type Hubs interface {
	Hub(r *api.Resource) *broadcast.Hub
}

// Config is what the endpoints need.
type Config struct {
	Store    storage.Interface
	Registry *api.Registry
	Hubs     Hubs
	Log      *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// WatchOpened and WatchClosed, if set, are told when a watch starts and ends.
	WatchOpened, WatchClosed func(r *api.Resource)
	// Namespaces, if set, answers namespace lookups for admission without reading etcd.
	Namespaces *NamespaceCache
	// BookmarkEvery is how often a watch that asked for bookmarks gets one.
	BookmarkEvery time.Duration
	// CheckWrite, if set, may refuse an object about to be created or updated
	// (RBAC escalation prevention); its error is returned as is.
	CheckWrite func(ctx context.Context, r *api.Resource, o api.Object) error
	// NodeTransport reaches node agents for pods/log; nil means logs are unavailable.
	NodeTransport http.RoundTripper
	// Admission, if set, runs on every create, update, patch and delete.
	Admission *admission.Chain
}

// Handler serves every resource path.
type Handler struct {
	cfg Config
}

// New returns a Handler.
func New(cfg Config) *Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BookmarkEvery <= 0 {
		cfg.BookmarkEvery = time.Minute
	}
	return &Handler{cfg: cfg}
}

// request is one resource request after routing.
type request struct {
	*RequestInfo
	res   *api.Resource
	strat *registry.Strategy
	gr    apierrors.Resource
	// fieldValidation is how admission treats unknown fields in the body.
	fieldValidation admission.FieldValidation
	// warnings are admission's warnings, sent as Warning headers.
	warnings []string
	// manager is the field manager a create, update or patch records its
	// fields under (operation Update); "" for applies and bindings.
	manager string
}

type infoKey struct{}

// WithRequestInfo stores info in ctx for filters that run after routing (metrics, logs).
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, infoKey{}, info)
}

// RequestInfoFrom returns the info stored by the resource handler, if any.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(infoKey{}).(*RequestInfo)
	return info, ok
}

// Resolve parses and checks a resource request against the registry.
func (h *Handler) Resolve(r *http.Request) (*request, error) {
	info, err := ParseRequestInfo(r)
	if err != nil {
		return nil, err
	}
	res, ok := h.cfg.Registry.Lookup(info.Group, info.Version, info.Resource)
	if !ok {
		return nil, notFoundPath()
	}
	if info.Namespace != "" && !res.Namespaced {
		return nil, notFoundPath()
	}
	if info.Subresource != "" && (info.Name == "" || !res.HasSubresource(info.Subresource)) {
		return nil, notFoundPath()
	}
	if res.Namespaced && info.Name != "" && info.Namespace == "" {
		return nil, notFoundPath()
	}
	return &request{RequestInfo: info, res: res, strat: registry.For(res), gr: apierrors.Resource{Group: res.Group, Resource: res.Name}}, nil
}

// ServeResource is the handler of every /api/v1/... and /apis/{g}/{v}/... path.
func (h *Handler) ServeResource(w http.ResponseWriter, r *http.Request) (any, error) {
	req, err := h.Resolve(r)
	if err != nil {
		return nil, err
	}
	if p, ok := RequestInfoFrom(r.Context()); ok {
		*p = *req.RequestInfo
	}
	if req.res.Virtual {
		return nil, apierrors.NewMethodNotSupported(req.gr, r.Method) // its POST has a route of its own
	}
	if req.fieldValidation, err = parseFieldValidation(r); err != nil {
		return nil, err
	}
	defer func() { writeWarnings(w, req.warnings) }()
	if req.Subresource != "binding" {
		req.manager = updateManager(r)
	}
	switch req.Subresource {
	case "":
	case "status", "finalize":
		if req.Verb != "get" && req.Verb != "update" && req.Verb != "patch" {
			return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
		}
	case "scale":
		return h.scale(w, r, req)
	case "token":
		// POST is served by the TokenRequest route; nothing else exists here.
		return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
	case "log":
		return h.podLog(w, r, req)
	case "binding":
		if req.Verb != "create" {
			return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
		}
		return h.bind(r, req)
	}
	switch req.Verb {
	case "get":
		return h.get(r, req)
	case "list":
		return h.list(r, req)
	case "watch":
		return h.watch(w, r, req)
	case "create":
		if req.Name != "" {
			return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
		}
		return h.create(r, req)
	case "update":
		if req.Name == "" {
			return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
		}
		return h.update(r, req)
	case "patch":
		if req.Name == "" {
			return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
		}
		return h.patch(r, req)
	case "delete":
		return h.delete(r, req)
	case "deletecollection":
		return h.deleteCollection(r, req)
	}
	return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
}

// key is the storage key of the request's object.
func (req *request) key() string { return req.res.Key(req.Namespace, req.Name) }

// prefix is the storage prefix a list or watch of the request covers.
func (req *request) prefix() string {
	if req.res.Namespaced && req.Namespace != "" {
		return req.res.KeyPrefix() + req.Namespace + "/"
	}
	return req.res.KeyPrefix()
}

// load reads the request's object.
func (h *Handler) load(ctx context.Context, req *request) (api.Object, int64, error) {
	kv, err := h.cfg.Store.Get(ctx, req.key())
	if err != nil {
		return nil, 0, storageError(err, req.res, req.Name)
	}
	o, err := decodeStored(kv.Value, kv.ModRevision)
	if err != nil {
		return nil, 0, err
	}
	req.fromStorage(o)
	return o, kv.ModRevision, nil
}
