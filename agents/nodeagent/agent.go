package nodeagent

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
)

// Agent is one node agent.
type Agent struct {
	cfg         Config
	log         *slog.Logger
	runtimeName string
	pods        *informer.Informer
	rec         *events.Recorder
	kick        chan struct{}

	port int // where logs are served; 0 for none

	nodeMu    sync.Mutex
	nodeUID   string
	condSince map[string]condSince

	mu       sync.Mutex
	state    map[string]*podState // by pod uid
	flushing bool                 // a status write pass is under way
}

// New returns an agent for cfg; call Run to start it.
func New(cfg Config) (*Agent, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	name := "process"
	if _, ok := cfg.Runtime.(*containers.Fake); ok {
		name = "fake"
	}
	a := &Agent{
		cfg:         cfg,
		log:         cfg.Logger.With("node", cfg.NodeName),
		runtimeName: name,
		kick:        make(chan struct{}, 1),
		condSince:   map[string]condSince{},
		state:       map[string]*podState{},
	}
	a.pods = informer.New(informer.Config{Client: cfg.Client, Version: "v1", Resource: "pods",
		FieldSelector: "spec.nodeName=" + cfg.NodeName, Logger: a.log,
		// A node must notice deletions soon after the hub is back; its watch is small.
		MaxBackoff: 2 * time.Second})
	a.pods.AddHandler(informer.HandlerFuncs{
		AddFunc:    func(api.Object) { a.poke() },
		UpdateFunc: func(_, _ api.Object) { a.poke() },
		DeleteFunc: func(api.Object) { a.poke() },
	})
	a.rec = events.New(events.Config{Client: cfg.Client, Component: "kubelet", Instance: cfg.NodeName, Logger: a.log})
	return a, nil
}

// poke asks for a sync soon.
func (a *Agent) poke() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// Run registers the node and serves it until ctx ends. Containers keep
// running after Run returns; a later agent adopts them.
func (a *Agent) Run(ctx context.Context) error {
	var srv *http.Server
	if a.runtimeName != "fake" {
		var err error
		if srv, err = a.logServer(); err != nil {
			return err
		}
		defer srv.Close()
	}
	for {
		err := a.register(ctx)
		if err == nil {
			break
		}
		a.log.Warn("registering node", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	a.log.Info("node registered", "address", a.cfg.Address, "runtime", a.runtimeName, "limitsEnforced", a.limitSupport().String())
	var wg sync.WaitGroup
	for _, f := range []func(context.Context){
		func(ctx context.Context) { a.pods.Run(ctx) },
		func(ctx context.Context) { a.rec.Run(ctx) },
		a.runLease,
		a.runNodeStatus,
		a.runSync,
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx)
		}()
	}
	wg.Wait()
	return nil
}

func (a *Agent) runSync(ctx context.Context) {
	t := time.NewTicker(a.cfg.SyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-a.kick:
		}
		if !a.pods.HasSynced() {
			continue
		}
		a.syncAll(ctx)
	}
}

// StopContainers stops every running container (SIGTERM, then SIGKILL after
// the pod's grace period capped at maxGrace) and reports how many there were.
// `capstan up` calls it on exit; a plain node agent leaves containers running.
func (a *Agent) StopContainers(ctx context.Context, maxGrace time.Duration) int {
	list, err := a.cfg.Runtime.List(ctx)
	if err != nil {
		return 0
	}
	var running []containers.Status
	for _, c := range list {
		if c.State == containers.StateRunning {
			running = append(running, c)
		}
	}
	a.stopAll(ctx, running, maxGrace)
	return len(running)
}
