package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/apiserver/internal/filters"
	"github.com/capstan-io/capstan/apiserver/internal/metrics"
	"github.com/capstan-io/capstan/auth/pki"
	"github.com/capstan-io/capstan/storage"
	"github.com/capstan-io/capstan/storage/etcd3"
)

// Server is the hub.
type Server struct {
	cfg Config
	log *slog.Logger
	reg *api.Registry
	// admission is the chain every write passes, and schemas the compiled
	// schemas it validates with, to which CRDs add theirs (admission.go).
	admission *admission.Chain
	schemas   *schema.Set
	webhooks  *webhookSource // fed by a watch in Run (webhooks.go)
	crds      *crdLister     // reads the stored CRDs once Run has a store (crds.go)
	newTook   time.Duration  // how long New took, logged with the start-up phases

	mu       sync.Mutex
	addr     string        // where HTTPS listens, once ready
	pki      *pki.Bundle   // once ready
	kubeconf string        // admin kubeconfig path, once ready
	readyc   chan struct{} // closed when the server accepts requests
}

// maxIdleHandlers bounds the goroutines kept waiting to serve requests
// (filters.Handlers); more are started when more requests are in flight.
const maxIdleHandlers = 128

// New checks cfg and returns a Server; Run starts it.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	begun := time.Now()
	s := &Server{cfg: cfg, log: log, reg: api.NewRegistry(api.Builtin()...), webhooks: &webhookSource{}, crds: &crdLister{}, readyc: make(chan struct{})}
	var err error
	if s.admission, s.schemas, err = newAdmission(s.reg, s.webhooks, s.crds, cfg.DisableAdmissionPlugins); err != nil {
		return nil, err
	}
	s.newTook = time.Since(begun)
	return s, nil
}

// Ready is closed once the server serves requests.
func (s *Server) Ready() <-chan struct{} { return s.readyc }

// URL is the server's HTTPS base URL; valid after Ready.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "https://" + s.addr
}

// PKI is the cluster's TLS material; valid after Ready.
func (s *Server) PKI() *pki.Bundle {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pki
}

// KubeconfigPath is the admin kubeconfig written at start; valid after Ready.
func (s *Server) KubeconfigPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kubeconf
}

// Run serves until ctx ends, then shuts down in order: HTTP, watches and other
// loops, the etcd client, the embedded etcd.
func (s *Server) Run(ctx context.Context) error {
	phases := newPhaseTimer()
	phases.add("schemas and admission (New)", s.newTook)
	bundle, err := pki.Ensure(pki.Config{Dir: s.cfg.DataDir, Hosts: s.hosts()})
	if err != nil {
		return fmt.Errorf("preparing TLS material: %w", err)
	}
	phases.done("tls")
	etcdURLs := s.cfg.EtcdServers
	if len(etcdURLs) == 0 {
		e, err := etcd3.StartEmbedded(etcd3.EmbeddedConfig{
			Dir:           filepath.Join(s.cfg.DataDir, "etcd"),
			ClientURL:     s.cfg.EmbeddedEtcdClientURL,
			PeerURL:       s.cfg.EmbeddedEtcdPeerURL,
			UnsafeNoFsync: s.cfg.UnsafeNoFsync,
		})
		if err != nil {
			return err
		}
		defer e.Close()
		etcdURLs = []string{e.Endpoint}
	}
	phases.done("embedded etcd")
	cli, err := etcd3.NewClient(etcdURLs)
	if err != nil {
		return fmt.Errorf("connecting to etcd: %w", err)
	}
	defer cli.Close()

	m := metrics.New()
	store := etcd3.New(cli, etcd3.Config{RequestTimeout: s.cfg.EtcdRequestTimeout, Observe: m.ObserveEtcd})
	m.Registry.MustRegister(newObjectCounter(store, s.reg))
	s.crds.setStore(store)

	ln, err := net.Listen("tcp", net.JoinHostPort(s.cfg.BindAddress, strconv.Itoa(s.cfg.SecurePort)))
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	hubs := newHubSet(runCtx, store, s.log)
	defer hubs.Wait()
	defer stop()
	phases.done("etcd client and listener")
	if err := s.bootstrap(ctx, store); err != nil {
		ln.Close()
		return err
	}
	phases.done("bootstrap objects")
	if err := s.bootstrapRBAC(ctx, store); err != nil {
		ln.Close()
		return err
	}
	phases.done("bootstrap RBAC")
	for _, r := range s.reg.All() {
		if !r.Virtual {
			hubs.Hub(r) // start every resource's watch now, so the first watcher does not wait
		}
	}
	nsCache := endpoints.NewNamespaceCache(store, hubs.Hub(s.mustLookup("", "v1", "namespaces")), s.log)

	edge, err := s.newEdge(bundle)
	if err != nil {
		ln.Close()
		return err
	}
	defer edge.Close()
	phases.done("watch hubs and authn/authz")
	handlers := filters.NewHandlers(maxIdleHandlers)
	defer func() { // after the server has shut down: deferred calls run after the body
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		if err := handlers.Close(ctx); err != nil {
			s.log.Warn("requests still running after shutdown", "err", err)
		}
	}()
	handler := handlers.Middleware(s.routes(store, hubs, nsCache, m, edge.sec, edge.audit))
	srv := &http.Server{
		Handler:           handler,
		TLSConfig:         edge.tls,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return runCtx },
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop() // on an early return, ends the loops wg waits for
	wg.Add(1)
	go func() {
		defer wg.Done()
		nsCache.Run(runCtx)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		newCRDController(store, s.reg, s.schemas, s.log).Run(runCtx) // crds.go
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.webhooks.Run(runCtx, store, s.log)
	}()
	if s.cfg.CompactionInterval > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			etcd3.NewCompactor(cli, s.cfg.CompactionInterval, s.log).Run(runCtx)
		}()
	}
	if err := edge.sec.run(runCtx, &wg, s, store, hubs); err != nil {
		ln.Close()
		return fmt.Errorf("loading RBAC state: %w", err)
	}
	serveErr := make(chan error, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		serveErr <- srv.ServeTLS(ln, "", "")
	}()
	insecure, err := s.serveInsecure(runCtx, &wg, handler, serveErr)
	if err != nil {
		srv.Close()
		return err
	}
	if insecure != nil {
		defer insecure.Close()
	}

	url := "https://" + s.clientHost(ln.Addr())
	kc, err := bundle.WriteAdminKubeconfig(url)
	if err != nil {
		srv.Close()
		return fmt.Errorf("writing admin kubeconfig: %w", err)
	}
	s.mu.Lock()
	s.addr, s.pki, s.kubeconf = ln.Addr().String(), bundle, kc
	s.mu.Unlock()
	close(s.readyc)
	phases.done("serving")
	s.log.Debug("start-up", phases.attrs()...)
	s.log.Info("serving", "url", url, "etcd", etcdURLs, "kubeconfig", kc)

	select {
	case err := <-serveErr:
		return fmt.Errorf("serving HTTPS: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	stop() // ends watches, so Shutdown does not wait for them
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if insecure != nil {
		insecure.Shutdown(sctx)
	}
	s.log.Info("stopped")
	return nil
}

// hosts are the serving certificate's extra SANs.
func (s *Server) hosts() []string {
	var h []string
	if s.cfg.AdvertiseAddress != "" {
		h = append(h, s.cfg.AdvertiseAddress)
	}
	if ip := net.ParseIP(s.cfg.BindAddress); ip != nil && !ip.IsUnspecified() {
		h = append(h, s.cfg.BindAddress)
	}
	return h
}

// clientHost is host:port as written into the admin kubeconfig.
func (s *Server) clientHost(addr net.Addr) string {
	_, port, _ := net.SplitHostPort(addr.String())
	host := s.cfg.AdvertiseAddress
	if host == "" {
		host = s.cfg.BindAddress
		if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
			host = "127.0.0.1"
		}
	}
	return net.JoinHostPort(host, port)
}

// bootstrap creates the namespaces every cluster has.
func (s *Server) bootstrap(ctx context.Context, store storage.Interface) error {
	ns := s.mustLookup("", "v1", "namespaces")
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		o := api.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{
			"name": name, "uid": newUID(), "creationTimestamp": time.Now().UTC().Format(time.RFC3339),
			"labels": map[string]any{"kubernetes.io/metadata.name": name},
		}, "spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}
		b, err := encodeJSON(o)
		if err != nil {
			return err
		}
		if _, err := store.Create(ctx, ns.Key("", name), b); err != nil && !errors.Is(err, storage.ErrExists) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	return nil
}

func (s *Server) mustLookup(group, version, name string) *api.Resource {
	r, ok := s.reg.Lookup(group, version, name)
	if !ok {
		panic("apiserver: resource " + name + " not registered")
	}
	return r
}
