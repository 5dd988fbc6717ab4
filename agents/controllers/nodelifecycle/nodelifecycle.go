package nodelifecycle

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Name is the controller's name for --controllers.
const Name = "nodelifecycle"

// Well-known names.
const (
	LeaseNamespace   = "kube-node-lease"
	UnreachableTaint = "node.kubernetes.io/unreachable"
)

// Config wires the controller.
type Config struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Logger    *slog.Logger
	Workers   int
	// GracePeriod is how long a Lease may go unrenewed (default 40s).
	GracePeriod time.Duration
	// EvictionTimeout is the toleration of pods that declare none (default 300s).
	EvictionTimeout time.Duration
}

// Controller is the node lifecycle controller. Its queue holds node names.
type Controller struct {
	cfg                 Config
	nodes, leases, pods *informer.Informer
	ctrl                *reconcile.Controller
	now                 func() time.Time

	mu   sync.Mutex
	seen map[string]observed // node name → last Lease renewal observed
}

type observed struct {
	renewTime string    // the Lease's spec.renewTime when observed
	at        time.Time // when we observed it change
}

// New registers the controller's handlers on the shared informers.
func New(cfg Config) *Controller {
	if cfg.Workers == 0 {
		cfg.Workers = 2
	}
	if cfg.GracePeriod == 0 {
		cfg.GracePeriod = 40 * time.Second
	}
	if cfg.EvictionTimeout == 0 {
		cfg.EvictionTimeout = 300 * time.Second
	}
	c := &Controller{cfg: cfg, nodes: cfg.Informers.For("", "v1", "nodes"), leases: cfg.Informers.For("coordination.k8s.io", "v1", "leases"),
		pods: cfg.Informers.For("", "v1", "pods"), now: time.Now, seen: map[string]observed{}}
	c.ctrl = reconcile.New(Name, c, reconcile.Options{Logger: cfg.Logger,
		WaitFor: []func() bool{c.nodes.HasSynced, c.leases.HasSynced, c.pods.HasSynced}})
	q := c.ctrl.Queue()
	c.nodes.AddHandler(informer.EnqueueHandler(q))
	c.leases.AddHandler(leaseHandler{c})
	onPod := func(p api.Object) {
		if n := api.NestedString(p, "spec", "nodeName"); n != "" {
			q.Add(n)
		}
	}
	c.pods.AddHandler(informer.HandlerFuncs{AddFunc: onPod, UpdateFunc: func(_, p api.Object) { onPod(p) }})
	return c
}

// Run watches nodes until ctx ends.
func (c *Controller) Run(ctx context.Context) error { return c.ctrl.Run(ctx, c.cfg.Workers) }

// leaseHandler records node Lease renewals and queues their nodes.
type leaseHandler struct{ c *Controller }

var _ informer.Handler = leaseHandler{}

// OnAdd takes the Leases of the first list at their renewTime (never later
// than now), so that a new leader does not take dead nodes for live ones.
func (h leaseHandler) OnAdd(l api.Object, initial bool) {
	at := h.c.now()
	if rt, err := time.Parse(time.RFC3339, api.NestedString(l, "spec", "renewTime")); initial && err == nil && rt.Before(at) {
		at = rt
	}
	h.observe(l, at)
}

func (h leaseHandler) OnUpdate(_, l api.Object) { h.observe(l, h.c.now()) }

func (h leaseHandler) OnDelete(api.Object) {}

// observe notes when a Lease's renewTime was seen to change.
func (h leaseHandler) observe(l api.Object, at time.Time) {
	if l.Namespace() != LeaseNamespace {
		return
	}
	rt := api.NestedString(l, "spec", "renewTime")
	h.c.mu.Lock()
	if o, ok := h.c.seen[l.Name()]; !ok || o.renewTime != rt {
		h.c.seen[l.Name()] = observed{renewTime: rt, at: at}
	}
	h.c.mu.Unlock()
	h.c.ctrl.Queue().Add(l.Name())
}

// lastSeen is when node's Lease was last seen renewed; a node never seen is
// treated as renewed now, so it gets a full grace period.
func (c *Controller) lastSeen(node string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.seen[node]
	if !ok {
		o = observed{renewTime: "<none>", at: c.now()}
		c.seen[node] = o
	}
	return o.at
}
