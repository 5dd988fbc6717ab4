package apiserver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/apiserver/internal/registry"
	"github.com/capstan-io/capstan/storage/etcd3"
)

// hubSet owns one broadcast.Hub per resource, started on first use.
type hubSet struct {
	ctx   context.Context // the server's run context; hubs stop with it
	store *etcd3.Store
	log   *slog.Logger

	mu   sync.Mutex
	hubs map[string]*broadcast.Hub
	wg   sync.WaitGroup // one per running hub
}

func newHubSet(ctx context.Context, store *etcd3.Store, log *slog.Logger) *hubSet {
	return &hubSet{ctx: ctx, store: store, log: log, hubs: map[string]*broadcast.Hub{}}
}

// Hub returns the hub of r, starting it if needed.
func (s *hubSet) Hub(r *api.Resource) *broadcast.Hub {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.hubs[r.KeyPrefix()]; ok {
		return h
	}
	strat := registry.For(r)
	h := broadcast.New(s.store, broadcast.Config{
		Prefix: r.KeyPrefix(),
		Decode: func(value []byte, rev int64) (*broadcast.Object, error) {
			o, err := api.Decode(value)
			if err != nil {
				return nil, err
			}
			b, err := endpoints.WithResourceVersion(value, rev)
			if err != nil {
				return nil, err
			}
			return &broadcast.Object{JSON: b, Namespace: o.Namespace(), Labels: o.Labels(), Fields: strat.FieldSet(o)}, nil
		},
		Progress:      s.store.RequestProgress,
		ProgressEvery: 5 * time.Second,
		Log:           s.log,
	})
	s.hubs[r.KeyPrefix()] = h
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		h.Run(s.ctx)
	}()
	return h
}

// Wait returns when every hub has stopped; the run context must be done.
func (s *hubSet) Wait() { s.wg.Wait() }
