// Package informers shares one informer per resource among the controllers
// of a controller-manager, so that each resource is listed and watched once.
// A Factory is safe for concurrent use; informers must be requested (and
// their handlers added) before Start.
package informers

import (
	"context"
	"log/slog"
	"sync"

	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Factory creates informers on demand and runs them together.
type Factory struct {
	cli *client.Client
	log *slog.Logger

	mu        sync.Mutex
	informers map[string]*informer.Informer // group/version/resource → informer
	started   bool
	wg        sync.WaitGroup // informer goroutines; waited by Wait
}

// New returns a Factory whose informers use cli.
func New(cli *client.Client, log *slog.Logger) *Factory {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Factory{cli: cli, log: log, informers: map[string]*informer.Informer{}}
}

// For returns the shared informer for a resource, creating it if needed.
func (f *Factory) For(group, version, resource string) *informer.Informer {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := group + "/" + version + "/" + resource
	if inf, ok := f.informers[k]; ok {
		return inf
	}
	if f.started {
		panic("informers: " + k + " requested after Start")
	}
	inf := informer.New(informer.Config{Client: f.cli, Group: group, Version: version, Resource: resource, Logger: f.log})
	f.informers[k] = inf
	return inf
}

// Pods, ReplicaSets, Deployments, Namespaces, Nodes and Leases are shorthands.
func (f *Factory) Pods() *informer.Informer        { return f.For("", "v1", "pods") }
func (f *Factory) ReplicaSets() *informer.Informer { return f.For("apps", "v1", "replicasets") }
func (f *Factory) Deployments() *informer.Informer { return f.For("apps", "v1", "deployments") }
func (f *Factory) Namespaces() *informer.Informer  { return f.For("", "v1", "namespaces") }
func (f *Factory) Nodes() *informer.Informer       { return f.For("", "v1", "nodes") }

// Start runs every informer requested so far until ctx ends; Wait waits for
// them to return.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = true
	for _, inf := range f.informers {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			inf.Run(ctx)
		}()
	}
}

// Wait blocks until the informers started by Start have returned.
func (f *Factory) Wait() { f.wg.Wait() }
