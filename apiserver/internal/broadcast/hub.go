package broadcast

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/capstan-io/capstan/storage"
)

// ErrDropped ends a Sub whose queue overflowed or whose hub restarted its history.
var ErrDropped = errors.New("broadcast: watcher dropped")

// Store is what a Hub needs from storage.
type Store interface {
	storage.Reader
	storage.Watcher
}

// Config tunes a Hub.
type Config struct {
	Prefix string
	Decode DecodeFunc
	// Window is how many recent events are kept for resuming watchers.
	Window int
	// Queue is each watcher's queue length beyond its initial backlog.
	Queue int
	// Progress, if set, is called every ProgressEvery to ask storage for a progress
	// notification, which lets quiet resources' bookmarks advance.
	Progress      func(ctx context.Context) error
	ProgressEvery time.Duration
	Log           *slog.Logger
}

// Hub fans out one storage watch of a prefix.
type Hub struct {
	cfg   Config
	store Store

	mu       sync.Mutex
	window   []*Event // ring buffer of the last cfg.Window events, oldest at head
	head     int
	floor    int64 // every event after floor is in window (once started)
	rev      int64 // newest revision seen
	started  bool
	subs     map[*Sub]struct{}
	startedc chan struct{} // closed once the first storage watch is open
}

// New returns a Hub; Run starts it.
func New(store Store, cfg Config) *Hub {
	if cfg.Window <= 0 {
		cfg.Window = 4096
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 1024
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Hub{cfg: cfg, store: store, subs: map[*Sub]struct{}{}, startedc: make(chan struct{})}
}

// Run watches storage until ctx ends, re-opening the watch after failures. When
// the hub cannot resume without a gap it drops every watcher and starts a new window.
func (h *Hub) Run(ctx context.Context) error {
	defer h.closeAll()
	var wg sync.WaitGroup
	defer wg.Wait()
	if h.cfg.Progress != nil && h.cfg.ProgressEvery > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.requestProgress(ctx)
		}()
	}
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		from, err := h.resumeRevision(ctx)
		if err == nil {
			err = h.watch(ctx, from)
		}
		if ctx.Err() != nil {
			return nil
		}
		h.cfg.Log.Warn("resource watch ended; reopening", "prefix", h.cfg.Prefix, "err", err)
		if errors.Is(err, storage.ErrCompacted) {
			h.reset()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

func (h *Hub) requestProgress(ctx context.Context) {
	t := time.NewTicker(h.cfg.ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = h.cfg.Progress(ctx) // best effort: a missed bookmark is harmless
		}
	}
}

// resumeRevision is where the storage watch starts: after the newest event seen,
// or at the current revision on first start and after a reset.
func (h *Hub) resumeRevision(ctx context.Context) (int64, error) {
	h.mu.Lock()
	started, rev := h.started, h.rev
	h.mu.Unlock()
	if started {
		return rev, nil
	}
	res, err := h.store.List(ctx, h.cfg.Prefix, storage.ListOptions{Limit: 1})
	if err != nil {
		return 0, err
	}
	h.mu.Lock()
	h.floor, h.rev, h.started = res.Revision, res.Revision, true
	h.mu.Unlock()
	select {
	case <-h.startedc:
	default:
		close(h.startedc)
	}
	return res.Revision, nil
}

func (h *Hub) watch(ctx context.Context, from int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, errc := h.store.Watch(wctx, h.cfg.Prefix, from)
	for se := range events {
		if ev := convert(h.cfg.Decode, h.cfg.Log, se); ev != nil {
			h.dispatch(ev)
		}
	}
	select {
	case err := <-errc:
		return err
	default:
		return ctx.Err()
	}
}

// dispatch records ev and hands it to every watcher without blocking.
func (h *Hub) dispatch(ev *Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ev.Rev > h.rev {
		h.rev = ev.Rev
	}
	if ev.Type == storage.EventProgress {
		for s := range h.subs {
			select {
			case s.ch <- ev:
			default: // a progress mark is never worth dropping a watcher for
			}
		}
		return
	}
	if len(h.window) < h.cfg.Window {
		h.window = append(h.window, ev)
	} else {
		h.floor = h.window[h.head].Rev
		h.window[h.head] = ev
		h.head = (h.head + 1) % len(h.window)
	}
	for s := range h.subs {
		if ev.Rev <= s.from {
			continue
		}
		select {
		case s.ch <- ev:
		default:
			h.drop(s, ErrDropped)
		}
	}
}

// reset forgets the window after a gap: every watcher is dropped and must resume.
func (h *Hub) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		h.drop(s, ErrDropped)
	}
	h.window, h.head, h.started = nil, 0, false
}

func (h *Hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		h.drop(s, ErrDropped)
	}
}

// drop removes s; callers hold h.mu.
func (h *Hub) drop(s *Sub, err error) {
	delete(h.subs, s)
	s.err = err
	close(s.ch)
}

// Revision returns the newest revision the hub has seen.
func (h *Hub) Revision() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rev
}

// Watchers returns how many watchers the hub is feeding.
func (h *Hub) Watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Covers reports whether a watch from rev is served from the window.
func (h *Hub) Covers(rev int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.started && rev >= h.floor
}
