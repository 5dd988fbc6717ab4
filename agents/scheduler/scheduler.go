package scheduler

import (
	"context"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/workqueue"
	"github.com/capstan-io/capstan/apiserver/api"
)

// Scheduler binds pending pods to nodes.
type Scheduler struct {
	cfg Config
	log *slog.Logger

	cache *Cache
	// The fields below are set per leadership term by run.
	pods, nodes *informer.Informer
	queue       *workqueue.Queue
	recorder    *events.Recorder
	bindc       chan binding // decisions to write; bounded, drained by binders

	mu            sync.Mutex
	unschedulable map[string]struct{} // pods waiting for a cluster change
}

// binding is one decision for a binder to write: a node to bind pod to, or
// (fit set) why it fits nowhere.
type binding struct {
	pod  *Pod
	node string
	fit  *FitError
}

// New validates cfg and returns a Scheduler.
func New(cfg Config) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Scheduler{cfg: cfg, log: cfg.Logger.With("component", "scheduler")}, nil
}

// Run schedules until ctx ends. With LeaderElect it first waits to hold the
// Lease and returns leaderelection.ErrLeadershipLost if it loses it.
func (s *Scheduler) Run(ctx context.Context) error {
	return s.cfg.Options.Run(ctx, s.cfg.Client, s.cfg.Logger, s.run)
}

// run is one term of scheduling: informers, recorder, the decision loop and
// the binders, all owned here and waited for before it returns.
func (s *Scheduler) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cache = NewCache()
	s.unschedulable = map[string]struct{}{}
	s.queue = workqueue.New(workqueue.MaxOf{
		workqueue.NewItemBackoff(s.cfg.RetryBase, s.cfg.RetryMax),
	})
	s.bindc = make(chan binding, s.cfg.BindWorkers)
	s.recorder = events.New(events.Config{Client: s.cfg.Client, Component: s.cfg.SchedulerName, Logger: s.cfg.Logger})
	informers := informer.NewFactory(s.cfg.Client, 0, s.cfg.Logger)
	s.pods = informers.For("", "v1", "pods")
	s.nodes = informers.For("", "v1", "nodes")
	s.pods.AddHandler(informer.HandlerFuncs{AddFunc: s.onPod, UpdateFunc: func(_, o api.Object) { s.onPod(o) }, DeleteFunc: s.onPodDelete})
	s.nodes.AddHandler(informer.HandlerFuncs{AddFunc: s.onNode, UpdateFunc: func(_, o api.Object) { s.onNode(o) }, DeleteFunc: s.onNodeDelete})

	var wg sync.WaitGroup
	goRun := func(f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx)
		}()
	}
	goRun(informers.Run)
	goRun(s.recorder.Run)
	defer wg.Wait()
	defer s.queue.ShutDown()
	defer cancel()
	if !informer.WaitForSync(ctx, informers.HasSynced) {
		return ctx.Err()
	}
	s.log.Info("caches synced, scheduling", "nodes", s.nodes.Store().Len(), "pods", s.pods.Store().Len())
	var binders sync.WaitGroup
	for range s.cfg.BindWorkers {
		binders.Add(1)
		go func() {
			defer binders.Done()
			for b := range s.bindc {
				if b.fit != nil {
					s.writeUnschedulable(ctx, b.pod, b.fit)
				} else {
					s.bind(ctx, b)
				}
			}
		}()
	}
	goRun(s.flushLoop)
	goRun(func(ctx context.Context) error { <-ctx.Done(); s.queue.ShutDown(); return nil })
	s.decide(ctx)
	close(s.bindc)
	binders.Wait()
	return ctx.Err()
}

// decide takes pods off the queue one at a time and places them.
func (s *Scheduler) decide(ctx context.Context) {
	rnd := mrand.New(mrand.NewPCG(mrand.Uint64(), mrand.Uint64()))
	for {
		key, shutdown := s.queue.Get()
		if shutdown || ctx.Err() != nil {
			return
		}
		s.scheduleOne(ctx, key, rnd)
		s.queue.Done(key)
	}
}

func (s *Scheduler) scheduleOne(ctx context.Context, key string, rnd *mrand.Rand) {
	o, ok := s.pods.Store().Get(key)
	if !ok {
		return
	}
	p, err := ParsePod(o)
	if err != nil {
		s.log.Error("skipping pod", "pod", key, "err", err)
		return
	}
	if !s.responsible(p) || s.cache.Assumed(key) {
		return
	}
	node, fe := s.cache.Schedule(p, rnd)
	if fe != nil {
		// Park the pod now, so its own status write does not queue it again.
		s.mu.Lock()
		s.unschedulable[key] = struct{}{}
		s.mu.Unlock()
	}
	select {
	case s.bindc <- binding{pod: p, node: node, fit: fe}:
	case <-ctx.Done():
		s.cache.Forget(key)
	}
}

// responsible reports whether p is a pending pod for this scheduler.
func (s *Scheduler) responsible(p *Pod) bool {
	return p.NodeName == "" && !p.Deleting && !p.Terminal &&
		(p.SchedulerName == s.cfg.SchedulerName || p.SchedulerName == "" && s.cfg.SchedulerName == DefaultSchedulerName)
}

// flushLoop retries every unschedulable pod each FlushInterval, in case what
// blocked it changed in a way no watched event shows.
func (s *Scheduler) flushLoop(ctx context.Context) error {
	t := time.NewTicker(s.cfg.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			s.retryUnschedulable()
		}
	}
}

// retryUnschedulable queues every waiting pod again, each after its own backoff.
func (s *Scheduler) retryUnschedulable() {
	s.mu.Lock()
	keys := s.unschedulable
	s.unschedulable = map[string]struct{}{}
	s.mu.Unlock()
	for k := range keys {
		s.queue.AddRateLimited(k)
	}
}
