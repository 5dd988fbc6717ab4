// Package namespace is the Namespace controller: once a namespace is
// Terminating it deletes everything in it, and when nothing is left it
// empties spec.finalizers through /finalize and deletes the namespace.
// Objects with finalizers are waited for, not forced. Reconcile is safe for
// concurrent use on distinct namespaces.
package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Name is the controller's name for --controllers.
const Name = "namespace"

// finalizer is the spec.finalizers entry this controller owns.
const finalizer = "kubernetes"

// Config wires the controller.
type Config struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Logger    *slog.Logger
	Workers   int
	// Resources are the namespaced resources emptied; default: every built-in
	// namespaced resource.
	Resources []api.Resource
	// RecheckAfter is the wait before looking again at a namespace whose
	// contents are still going away (default 1s).
	RecheckAfter time.Duration
}

// Controller is the Namespace controller. Its queue holds namespace names.
type Controller struct {
	cfg  Config
	ns   *informer.Informer
	ctrl *reconcile.Controller
}

// New registers the controller's handlers on the shared informers.
func New(cfg Config) *Controller {
	if cfg.Workers == 0 {
		cfg.Workers = 2
	}
	if cfg.RecheckAfter == 0 {
		cfg.RecheckAfter = time.Second
	}
	if cfg.Resources == nil {
		for _, r := range api.Builtin() {
			if r.Namespaced {
				cfg.Resources = append(cfg.Resources, r)
			}
		}
	}
	c := &Controller{cfg: cfg, ns: cfg.Informers.For("", "v1", "namespaces")}
	c.ctrl = reconcile.New(Name, c, reconcile.Options{Logger: cfg.Logger, WaitFor: []func() bool{c.ns.HasSynced}})
	c.ns.AddHandler(informer.EnqueueHandler(c.ctrl.Queue()))
	return c
}

// Run syncs namespaces until ctx ends.
func (c *Controller) Run(ctx context.Context) error { return c.ctrl.Run(ctx, c.cfg.Workers) }

var _ reconcile.Reconciler = (*Controller)(nil)

// errRemaining says a namespace still has contents.
var errRemaining = errors.New("namespace: content remaining")

// Reconcile empties and removes a terminating namespace.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ns, ok := c.ns.Store().Get(req.Name)
	if !ok || !meta.Deleting(ns) {
		return reconcile.Result{}, nil
	}
	remaining, err := c.deleteContent(ctx, req.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	if remaining > 0 {
		return reconcile.Result{RequeueAfter: c.cfg.RecheckAfter}, nil
	}
	return reconcile.Result{}, c.finalize(ctx, ns)
}

// deleteContent deletes every object in ns and returns how many are left.
func (c *Controller) deleteContent(ctx context.Context, ns string) (int, error) {
	remaining := 0
	for _, r := range c.cfg.Resources {
		rc := c.cfg.Client.Resource(r.Group, r.Version, r.Name).Namespace(ns)
		l, err := rc.List(ctx, client.ListOptions{})
		if err != nil {
			return 0, fmt.Errorf("listing %s in %s: %w", r.Name, ns, err)
		}
		remaining += len(l.Items)
		for _, o := range l.Items {
			if meta.Deleting(o) {
				continue
			}
			if _, err := rc.Delete(ctx, o.Name(), map[string]any{"propagationPolicy": "Background"}); err != nil && !apierrors.IsNotFound(err) {
				return 0, fmt.Errorf("deleting %s %s/%s: %w", r.Name, ns, o.Name(), err)
			}
		}
	}
	return remaining, nil
}

// finalize removes this controller's finalizer and then the namespace.
func (c *Controller) finalize(ctx context.Context, ns api.Object) error {
	rc := c.cfg.Client.Resource("", "v1", "namespaces")
	var keep []any
	for _, f := range api.NestedSlice(ns, "spec", "finalizers") {
		if f != finalizer {
			keep = append(keep, f)
		}
	}
	o := ns.DeepCopy()
	if keep == nil {
		keep = []any{}
	}
	api.SetNested(o, keep, "spec", "finalizers")
	if _, err := rc.Update(ctx, o, "finalize"); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalizing namespace %s: %w", ns.Name(), err)
	}
	if len(keep) > 0 {
		return nil // another finalizer's owner removes it
	}
	if _, err := rc.Delete(ctx, ns.Name(), nil); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting namespace %s: %w", ns.Name(), err)
	}
	return nil
}
