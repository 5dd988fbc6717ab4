package controllers

import (
	"context"
	"sync"

	"github.com/capstan-io/capstan/agents/controllers/deployment"
	"github.com/capstan-io/capstan/agents/controllers/garbagecollector"
	"github.com/capstan-io/capstan/agents/controllers/namespace"
	"github.com/capstan-io/capstan/agents/controllers/nodelifecycle"
	"github.com/capstan-io/capstan/agents/controllers/replicaset"
	"github.com/capstan-io/capstan/agents/controllers/serviceaccount"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
)

// Manager runs the enabled controllers.
type Manager struct {
	cfg     Config
	enabled []string
}

// New validates cfg and returns a Manager.
func New(cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	enabled, _ := Enabled(cfg.Controllers)
	return &Manager{cfg: cfg, enabled: enabled}, nil
}

// Run runs the controllers until ctx ends; with leader election, only while
// this replica holds the Lease (and it returns when leadership is lost).
func (m *Manager) Run(ctx context.Context) error {
	return m.cfg.Options.Run(ctx, m.cfg.Client, m.cfg.Logger, m.run)
}

// runner is what every controller provides.
type runner interface {
	Run(ctx context.Context) error
}

// run builds the controllers on fresh informers and runs them: a new leader
// starts from a fresh list, never from a cache it stopped updating.
func (m *Manager) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := m.cfg.Logger.With("component", "controller-manager")
	f := informer.NewFactory(m.cfg.Client, 0, m.cfg.Logger)
	var runs []func(context.Context) error
	for _, name := range m.enabled {
		rec := events.New(events.Config{Client: m.cfg.Client, Component: name + "-controller", Logger: m.cfg.Logger})
		runs = append(runs, rec.Run, m.build(name, f, rec).Run)
	}
	runs = append(runs, f.Run) // last: every informer is requested by now
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r(ctx)
		}()
	}
	log.Info("controllers started", "controllers", m.enabled)
	<-ctx.Done()
	wg.Wait()
	return ctx.Err()
}

func (m *Manager) build(name string, f *informer.Factory, rec *events.Recorder) runner {
	cli, log, workers := m.cfg.Client, m.cfg.Logger.With("controller", name), m.cfg.Syncs[name]
	switch name {
	case replicaset.Name:
		return replicaset.New(replicaset.Config{Client: cli, Informers: f, Recorder: rec, Logger: log, Workers: workers})
	case deployment.Name:
		return deployment.New(deployment.Config{Client: cli, Informers: f, Recorder: rec, Logger: log, Workers: workers})
	case garbagecollector.Name:
		return garbagecollector.New(garbagecollector.Config{Client: cli, Informers: f, Recorder: rec, Logger: log, Workers: workers})
	case namespace.Name:
		return namespace.New(namespace.Config{Client: cli, Informers: f, Recorder: rec, Logger: log, Workers: workers})
	case nodelifecycle.Name:
		return nodelifecycle.New(nodelifecycle.Config{Client: cli, Informers: f, Recorder: rec, Logger: log, Workers: workers,
			GracePeriod: m.cfg.NodeMonitorGracePeriod, EvictionTimeout: m.cfg.PodEvictionTimeout})
	case serviceaccount.Name:
		return serviceaccount.New(serviceaccount.Config{Client: cli, Informers: f, Recorder: rec, Logger: log, Workers: workers})
	}
	panic("controllers: no constructor for " + name)
}
