package replicaset

import (
	"context"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Name is the controller's name for --controllers and its events' source.
const Name = "replicaset"

// Config wires the controller.
type Config struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Logger    *slog.Logger
	// Workers is how many ReplicaSets are synced at once (default 5).
	Workers int
	// BurstReplicas bounds the pods created or deleted in one sync (default 500).
	BurstReplicas int
}

// Controller is the ReplicaSet controller.
type Controller struct {
	cfg       Config
	pods, rss *informer.Informer
	exp       *Expectations
	ctrl      *reconcile.Controller
	now       func() time.Time
}

// New registers the controller's handlers on the shared informers.
func New(cfg Config) *Controller {
	if cfg.Workers == 0 {
		cfg.Workers = 5
	}
	if cfg.BurstReplicas == 0 {
		cfg.BurstReplicas = 500
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{cfg: cfg, pods: cfg.Informers.For("", "v1", "pods"), rss: cfg.Informers.For("apps", "v1", "replicasets"),
		exp: NewExpectations(5 * time.Minute), now: time.Now}
	c.ctrl = reconcile.New(Name, c, reconcile.Options{Logger: cfg.Logger, WaitFor: []func() bool{c.pods.HasSynced, c.rss.HasSynced}})
	c.rss.AddHandler(informer.HandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, n api.Object) { c.enqueue(n) },
		DeleteFunc: func(o api.Object) { c.exp.Delete(informer.Key(o)); c.enqueue(o) },
	})
	c.pods.AddHandler(informer.HandlerFuncs{AddFunc: c.onPodAdd, UpdateFunc: c.onPodUpdate, DeleteFunc: c.onPodDelete})
	return c
}

// Run syncs ReplicaSets until ctx ends.
func (c *Controller) Run(ctx context.Context) error { return c.ctrl.Run(ctx, c.cfg.Workers) }

func (c *Controller) enqueue(o api.Object) { c.ctrl.Queue().Add(informer.Key(o)) }

// owner is the key of the ReplicaSet controlling pod p, if any.
func (c *Controller) owner(p api.Object) (string, bool) {
	ref, ok := meta.ControllerRef(p)
	if !ok || ref.Kind != "ReplicaSet" {
		return "", false
	}
	key := informer.KeyOf(p.Namespace(), ref.Name)
	rs, ok := c.rss.Store().Get(key)
	if !ok || rs.UID() != ref.UID {
		return "", false
	}
	return key, true
}

// enqueueMatching queues every ReplicaSet that might adopt orphan pod p.
func (c *Controller) enqueueMatching(p api.Object) {
	for _, rs := range c.rss.Store().ByIndex(informer.IndexNamespace, p.Namespace()) {
		if sel, ok := meta.ParseSelector(api.NestedMap(rs, "spec", "selector")); ok && sel.Matches(p.Labels()) {
			c.enqueue(rs)
		}
	}
}

func (c *Controller) onPodAdd(p api.Object) {
	if key, ok := c.owner(p); ok {
		c.exp.CreationObserved(key)
		if meta.Deleting(p) {
			c.exp.DeletionObserved(key, informer.Key(p))
		}
		c.ctrl.Queue().Add(key)
		return
	}
	if _, has := meta.ControllerRef(p); !has {
		c.enqueueMatching(p)
	}
}

func (c *Controller) onPodUpdate(old, p api.Object) {
	if key, ok := c.owner(old); ok {
		c.ctrl.Queue().Add(key)
	}
	if key, ok := c.owner(p); ok {
		if meta.Deleting(p) {
			c.exp.DeletionObserved(key, informer.Key(p))
		}
		c.ctrl.Queue().Add(key)
		return
	}
	if _, has := meta.ControllerRef(p); !has {
		c.enqueueMatching(p)
	}
}

func (c *Controller) onPodDelete(p api.Object) {
	if key, ok := c.owner(p); ok {
		c.exp.DeletionObserved(key, informer.Key(p))
		c.ctrl.Queue().Add(key)
	}
}
