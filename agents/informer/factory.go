package informer

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/capstan-io/capstan/apiserver/client"
)

// Factory hands out one shared Informer per resource, so controllers in one
// process watch each resource once (as client-go's SharedInformerFactory).
// Get every informer and add every handler before Run. A Factory is safe
// for concurrent use.
type Factory struct {
	client *client.Client
	resync time.Duration
	log    *slog.Logger

	mu        sync.Mutex
	informers map[[3]string]*Informer // by group, version, resource
	started   bool
}

// NewFactory returns a Factory whose informers use cli and resync every
// resync (0 disables); log may be nil.
func NewFactory(cli *client.Client, resync time.Duration, log *slog.Logger) *Factory {
	return &Factory{client: cli, resync: resync, log: log, informers: map[[3]string]*Informer{}}
}

// For returns the shared informer for group/version/resource, creating it on
// first use. It panics after Run, when a new informer could not be started.
func (f *Factory) For(group, version, resource string) *Informer {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := [3]string{group, version, resource}
	if inf, ok := f.informers[k]; ok {
		return inf
	}
	if f.started {
		panic("informer: Factory.For(" + resource + ") after Run")
	}
	inf := New(Config{Client: f.client, Group: group, Version: version, Resource: resource, ResyncPeriod: f.resync, Logger: f.log})
	f.informers[k] = inf
	return inf
}

// HasSynced reports whether every informer has synced.
func (f *Factory) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, inf := range f.informers {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// Run runs every informer until ctx ends and returns once they all have.
func (f *Factory) Run(ctx context.Context) error {
	f.mu.Lock()
	f.started = true
	infs := make([]*Informer, 0, len(f.informers))
	for _, inf := range f.informers {
		infs = append(infs, inf)
	}
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, inf := range infs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inf.Run(ctx)
		}()
	}
	wg.Wait()
	return ctx.Err()
}
