package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/capstan-io/capstan/agents/internal/wait"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Config says what to cache and how.
type Config struct {
	// Client reaches the hub.
	Client *client.Client
	// Group, Version and Resource name the resource ("" group for core).
	Group, Version, Resource string
	// Namespace limits the cache to one namespace; "" is all.
	Namespace string
	// LabelSelector and FieldSelector narrow the list and watch.
	LabelSelector, FieldSelector string
	// ResyncPeriod re-delivers every cached object as an update; 0 disables.
	ResyncPeriod time.Duration
	// Indexers adds indexes to the default ones (namespace, nodeName, owner).
	Indexers map[string]IndexFunc
	// PageSize is the list page size; 0 means 500.
	PageSize int64
	// MinBackoff and MaxBackoff bound the retry delay after a failed list or
	// watch; 0 means 100ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// WatchTimeout is the longest one watch request lasts before it is
	// renewed from the last resourceVersion (jittered up to 2x); 0 means 5m.
	WatchTimeout time.Duration
	// Logger receives retries and re-lists; nil discards.
	Logger *slog.Logger
}

// Informer is a reflector (list+watch) feeding a Store and Handlers.
type Informer struct {
	cfg      Config
	rc       *client.ResourceClient
	store    *Store
	log      *slog.Logger
	synced   atomic.Bool
	started  atomic.Bool
	mu       sync.Mutex // guards handlers
	handlers []Handler
	lastRV   atomic.Value // string: the last resourceVersion seen
}

// New returns an Informer for cfg; call Run to start it.
func New(cfg Config) *Informer {
	if cfg.PageSize == 0 {
		cfg.PageSize = 500
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.WatchTimeout == 0 {
		cfg.WatchTimeout = 5 * time.Minute
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	inf := &Informer{
		cfg:   cfg,
		rc:    cfg.Client.Resource(cfg.Group, cfg.Version, cfg.Resource).Namespace(cfg.Namespace),
		store: NewStore(cfg.Indexers),
		log:   log.With("resource", cfg.Resource),
	}
	inf.lastRV.Store("")
	return inf
}

// Store is the cache.
func (inf *Informer) Store() *Store { return inf.store }

// HasSynced reports whether the first list has been stored and delivered.
func (inf *Informer) HasSynced() bool { return inf.synced.Load() }

// LastResourceVersion is the newest resourceVersion the informer has seen.
func (inf *Informer) LastResourceVersion() string { return inf.lastRV.Load().(string) }

// AddHandler registers h. Handlers must be added before Run.
func (inf *Informer) AddHandler(h Handler) {
	if inf.started.Load() {
		panic("informer: AddHandler after Run")
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.handlers = append(inf.handlers, h)
}

// Run lists and watches until ctx is done, then returns ctx's error.
func (inf *Informer) Run(ctx context.Context) error {
	inf.started.Store(true)
	inf.mu.Lock()
	handlers := append([]Handler(nil), inf.handlers...)
	inf.mu.Unlock()

	var resync <-chan time.Time
	if inf.cfg.ResyncPeriod > 0 {
		t := time.NewTicker(inf.cfg.ResyncPeriod)
		defer t.Stop()
		resync = t.C
	}
	bo := wait.Backoff{Min: inf.cfg.MinBackoff, Max: inf.cfg.MaxBackoff}
	rv := ""
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if rv == "" {
			var err error
			if rv, err = inf.list(ctx, handlers); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				inf.log.Warn("list failed", "err", err)
				if !wait.Sleep(ctx, bo.Next()) {
					return ctx.Err()
				}
				continue
			}
		}
		next, err := inf.watch(ctx, rv, handlers, resync)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case apierrors.IsGone(err):
			inf.log.Info("watch expired, listing again", "rv", next)
			rv = ""
			bo.Reset()
		case err != nil:
			inf.log.Warn("watch failed", "rv", next, "err", err)
			if next != rv {
				bo.Reset() // the watch worked until now: this failure starts the backoff again
			}
			rv = next
			if !wait.Sleep(ctx, bo.Next()) {
				return ctx.Err()
			}
		default:
			rv = next
			bo.Reset()
		}
	}
}

// list reads every page and replaces the cache with the result.
func (inf *Informer) list(ctx context.Context, handlers []Handler) (string, error) {
	var items []api.Object
	opts := client.ListOptions{LabelSelector: inf.cfg.LabelSelector, FieldSelector: inf.cfg.FieldSelector, Limit: inf.cfg.PageSize}
	var rv string
	for {
		l, err := inf.rc.List(ctx, opts)
		if err != nil {
			return "", fmt.Errorf("listing %s: %w", inf.cfg.Resource, err)
		}
		items = append(items, l.Items...)
		rv = l.Metadata.ResourceVersion
		if l.Metadata.Continue == "" {
			break
		}
		opts.Continue = l.Metadata.Continue
	}
	inf.replace(items, handlers)
	inf.lastRV.Store(rv)
	inf.synced.Store(true)
	return rv, nil
}

// replace makes the cache equal items, telling handlers the difference.
func (inf *Informer) replace(items []api.Object, handlers []Handler) {
	initial := !inf.synced.Load()
	seen := make(map[string]struct{}, len(items))
	for _, o := range items {
		seen[Key(o)] = struct{}{}
		inf.apply(api.Modified, o, handlers, initial)
	}
	for _, k := range inf.store.keys() {
		if _, ok := seen[k]; !ok {
			if old, ok := inf.store.remove(k); ok {
				for _, h := range handlers {
					h.OnDelete(old)
				}
			}
		}
	}
}

// apply stores one change and delivers it.
func (inf *Informer) apply(typ string, o api.Object, handlers []Handler, initial bool) {
	if typ == api.Deleted {
		if _, ok := inf.store.remove(Key(o)); !ok {
			return
		}
		for _, h := range handlers {
			h.OnDelete(o)
		}
		return
	}
	old, existed := inf.store.put(o)
	for _, h := range handlers {
		if existed {
			h.OnUpdate(old, o)
		} else {
			h.OnAdd(o, initial)
		}
	}
}

// watch follows one watch request from rv; it returns the last rv seen and
// why the stream ended (nil for a clean end such as a server timeout).
func (inf *Informer) watch(ctx context.Context, rv string, handlers []Handler, resync <-chan time.Time) (string, error) {
	timeout := wait.Jitter(inf.cfg.WatchTimeout, 1)
	w, err := inf.rc.Watch(ctx, client.ListOptions{
		LabelSelector: inf.cfg.LabelSelector, FieldSelector: inf.cfg.FieldSelector,
		ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: int64(timeout / time.Second),
	})
	if err != nil {
		return rv, err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return rv, ctx.Err()
		case <-resync:
			for _, o := range inf.store.List() {
				for _, h := range handlers {
					h.OnUpdate(o, o)
				}
			}
		case ev, ok := <-w.Events():
			if !ok {
				return rv, w.Err()
			}
			if r := ev.Object.ResourceVersion(); r != "" {
				rv = r
				inf.lastRV.Store(r)
			}
			switch ev.Type {
			case api.Added, api.Modified, api.Deleted:
				inf.apply(ev.Type, ev.Object, handlers, false)
			case api.Bookmark:
			default:
				return rv, errors.New("informer: unexpected watch event " + ev.Type)
			}
		}
	}
}

// WaitForSync blocks until every synced func reports true or ctx is done; it
// reports whether all synced.
func WaitForSync(ctx context.Context, synced ...func() bool) bool {
	return wait.Until(ctx, 20*time.Millisecond, func() bool {
		for _, s := range synced {
			if !s() {
				return false
			}
		}
		return true
	})
}
