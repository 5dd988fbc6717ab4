package deployment

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

// Name is the controller's name for --controllers.
const Name = "deployment"

// Annotations and labels shared with kubectl.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	ChangeCauseAnnotation     = "kubernetes.io/change-cause"
	HashLabel                 = "pod-template-hash"
)

// Config wires the controller.
type Config struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Logger    *slog.Logger
	Workers   int
}

// Controller is the Deployment controller.
type Controller struct {
	cfg             Config
	deps, rss, pods *informer.Informer
	ctrl            *reconcile.Controller
	now             func() time.Time
}

// New registers the controller's handlers on the shared informers.
func New(cfg Config) *Controller {
	if cfg.Workers == 0 {
		cfg.Workers = 5
	}
	c := &Controller{cfg: cfg, deps: cfg.Informers.For("apps", "v1", "deployments"), rss: cfg.Informers.For("apps", "v1", "replicasets"), pods: cfg.Informers.For("", "v1", "pods"), now: time.Now}
	c.ctrl = reconcile.New(Name, c, reconcile.Options{Logger: cfg.Logger,
		WaitFor: []func() bool{c.deps.HasSynced, c.rss.HasSynced, c.pods.HasSynced}})
	c.deps.AddHandler(informer.EnqueueHandler(c.ctrl.Queue()))
	owner := func(o api.Object) {
		if ref, ok := meta.ControllerRef(o); ok && ref.Kind == "Deployment" {
			c.ctrl.Queue().Add(informer.KeyOf(o.Namespace(), ref.Name))
			return
		}
		// An orphan ReplicaSet may be adopted by a Deployment selecting it.
		for _, d := range c.deps.Store().ByIndex(informer.IndexNamespace, o.Namespace()) {
			if sel, ok := meta.ParseSelector(api.NestedMap(d, "spec", "selector")); ok && sel.Matches(o.Labels()) {
				c.ctrl.Queue().Add(informer.Key(d))
			}
		}
	}
	c.rss.AddHandler(informer.HandlerFuncs{AddFunc: owner, UpdateFunc: func(_, o api.Object) { owner(o) }, DeleteFunc: owner})
	// Recreate waits for old pods to be gone; their deletion requeues.
	c.pods.AddHandler(informer.HandlerFuncs{DeleteFunc: func(p api.Object) {
		ref, ok := meta.ControllerRef(p)
		if !ok || ref.Kind != "ReplicaSet" {
			return
		}
		if rs, ok := c.rss.Store().Get(informer.KeyOf(p.Namespace(), ref.Name)); ok {
			owner(rs)
		}
	}})
	return c
}

// Run syncs Deployments until ctx ends.
func (c *Controller) Run(ctx context.Context) error { return c.ctrl.Run(ctx, c.cfg.Workers) }
