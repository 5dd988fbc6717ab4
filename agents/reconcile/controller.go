package reconcile

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/workqueue"
)

// Controller runs workers that take keys from a queue and reconcile them.
type Controller struct {
	name  string
	r     Reconciler
	queue *workqueue.Queue
	log   *slog.Logger
	// Synced, if set, are waited for before workers start (informers' HasSynced).
	synced []func() bool
}

// Options tune a Controller; zero values are defaults.
type Options struct {
	// RateLimiter paces retries; nil is workqueue.DefaultRateLimiter.
	RateLimiter workqueue.RateLimiter
	// Logger receives failures; nil discards.
	Logger *slog.Logger
	// WaitFor are HasSynced funcs that must all be true before workers start.
	WaitFor []func() bool
}

// New returns a Controller named name (used in logs) for r.
func New(name string, r Reconciler, opts Options) *Controller {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Controller{name: name, r: r, queue: workqueue.New(opts.RateLimiter), log: log.With("controller", name), synced: opts.WaitFor}
}

// Queue is the controller's work queue; informer handlers add keys to it
// (see informer.EnqueueHandler).
func (c *Controller) Queue() *workqueue.Queue { return c.queue }

// Enqueue adds a request's key.
func (c *Controller) Enqueue(req Request) { c.queue.Add(req.String()) }

// Run waits for the caches, runs workers goroutines until ctx is done, then
// shuts the queue down and waits for the workers to finish their current item.
func (c *Controller) Run(ctx context.Context, workers int) error {
	if workers < 1 {
		workers = 1
	}
	defer c.queue.ShutDown()
	if !informer.WaitForSync(ctx, c.synced...) {
		return ctx.Err()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return ctx.Err()
}

// processNext reconciles one key; it reports false when the queue is shut down.
func (c *Controller) processNext(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	res, err := c.reconcile(ctx, key)
	switch {
	case ctx.Err() != nil:
		// Shutting down: the key is dropped; the next leader lists afresh.
	case err != nil && IsTerminal(err):
		c.log.Error("reconcile failed permanently", "key", key, "err", err)
		c.queue.Forget(key)
	case err != nil:
		c.log.Warn("reconcile failed, retrying", "key", key, "err", err, "retries", c.queue.NumRequeues(key))
		c.queue.AddRateLimited(key)
	case res.RequeueAfter > 0:
		c.queue.Forget(key)
		c.queue.AddAfter(key, res.RequeueAfter)
	case res.Requeue:
		c.queue.AddRateLimited(key)
	default:
		c.queue.Forget(key)
	}
	return true
}

// reconcile calls the Reconciler, turning a panic into an error.
func (c *Controller) reconcile(ctx context.Context, key string) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic reconciling %s: %v", key, p)
		}
	}()
	return c.r.Reconcile(ctx, RequestFromKey(key))
}
