package broadcast

import (
	"context"
	"sync"

	"github.com/capstan-io/capstan/storage"
)

// Sub is one watcher's stream of events after a revision.
type Sub struct {
	ch   chan *Event
	from int64
	err  error // why ch was closed; written before close, read after

	hub    *Hub
	cancel context.CancelFunc // stops a private storage watch
	wg     sync.WaitGroup     // the private watch's converter goroutine
	once   sync.Once
}

// C delivers events in revision order. It is closed when the stream ends; Err then says why.
func (s *Sub) C() <-chan *Event { return s.ch }

// Err is nil while C is open. After C is closed it reports why: ErrDropped
// (resume from the last event), storage.ErrCompacted (re-list), or another
// storage error.
func (s *Sub) Err() error { return s.err }

// Stop ends the stream and releases its resources. It is safe to call more than once.
func (s *Sub) Stop() {
	s.once.Do(func() {
		if s.cancel != nil {
			s.cancel()
			s.wg.Wait()
			return
		}
		s.hub.mu.Lock()
		if _, ok := s.hub.subs[s]; ok {
			delete(s.hub.subs, s)
			close(s.ch)
		}
		s.hub.mu.Unlock()
	})
}

// Subscribe streams every event after rev. A rev inside the hub's window is
// served from memory; an older one through a private storage watch.
func (h *Hub) Subscribe(ctx context.Context, rev int64) *Sub {
	select {
	case <-h.startedc:
	case <-ctx.Done():
	}
	h.mu.Lock()
	if h.started && rev >= h.floor {
		defer h.mu.Unlock()
		s := &Sub{from: rev, hub: h}
		var backlog []*Event
		n := len(h.window)
		for i := range n {
			if ev := h.window[(h.head+i)%n]; ev.Rev > rev {
				backlog = append(backlog, ev)
			}
		}
		s.ch = make(chan *Event, len(backlog)+h.cfg.Queue)
		for _, ev := range backlog {
			s.ch <- ev
		}
		h.subs[s] = struct{}{}
		return s
	}
	h.mu.Unlock()
	return h.private(ctx, rev)
}

// private serves a watcher whose revision is older than the window.
func (h *Hub) private(ctx context.Context, rev int64) *Sub {
	ctx, cancel := context.WithCancel(ctx)
	s := &Sub{from: rev, hub: h, cancel: cancel, ch: make(chan *Event, h.cfg.Queue)}
	events, errc := h.store.Watch(ctx, h.cfg.Prefix, rev)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.ch)
		for se := range events {
			ev := convert(h.cfg.Decode, h.cfg.Log, se)
			if ev == nil {
				continue
			}
			select {
			case s.ch <- ev:
			case <-ctx.Done():
				return
			}
		}
		select {
		case err := <-errc:
			s.err = err
		default:
			s.err = ErrDropped
		}
		if s.err == nil {
			s.err = storage.ErrUnavailable
		}
	}()
	return s
}
