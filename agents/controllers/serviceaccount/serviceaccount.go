// Package serviceaccount is the ServiceAccount controller: every namespace
// that is not terminating has a ServiceAccount named default. Reconcile is
// idempotent and safe for concurrent use.
package serviceaccount

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Name is the controller's name for --controllers.
const Name = "serviceaccount"

// DefaultName is the ServiceAccount every namespace gets.
const DefaultName = "default"

// Config wires the controller.
type Config struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Logger    *slog.Logger
	Workers   int
}

// Controller is the ServiceAccount controller. Its queue holds namespace names.
type Controller struct {
	cfg     Config
	ns, sas *informer.Informer
	ctrl    *reconcile.Controller
}

// New registers the controller's handlers on the shared informers.
func New(cfg Config) *Controller {
	if cfg.Workers == 0 {
		cfg.Workers = 2
	}
	c := &Controller{cfg: cfg, ns: cfg.Informers.For("", "v1", "namespaces"), sas: cfg.Informers.For("", "v1", "serviceaccounts")}
	c.ctrl = reconcile.New(Name, c, reconcile.Options{Logger: cfg.Logger, WaitFor: []func() bool{c.ns.HasSynced, c.sas.HasSynced}})
	q := c.ctrl.Queue()
	c.ns.AddHandler(informer.HandlerFuncs{AddFunc: func(o api.Object) { q.Add(o.Name()) }, UpdateFunc: func(_, o api.Object) { q.Add(o.Name()) }})
	c.sas.AddHandler(informer.HandlerFuncs{DeleteFunc: func(o api.Object) {
		if o.Name() == DefaultName {
			q.Add(o.Namespace())
		}
	}})
	return c
}

// Run syncs namespaces until ctx ends.
func (c *Controller) Run(ctx context.Context) error { return c.ctrl.Run(ctx, c.cfg.Workers) }

var _ reconcile.Reconciler = (*Controller)(nil)

// Reconcile makes sure namespace req.Name has a default ServiceAccount.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ns, ok := c.ns.Store().Get(req.Name)
	if !ok || meta.Deleting(ns) || api.NestedString(ns, "status", "phase") == "Terminating" {
		return reconcile.Result{}, nil
	}
	if _, ok := c.sas.Store().Get(informer.KeyOf(req.Name, DefaultName)); ok {
		return reconcile.Result{}, nil
	}
	sa := api.Object{"apiVersion": "v1", "kind": "ServiceAccount",
		"metadata": map[string]any{"name": DefaultName, "namespace": req.Name}}
	_, err := c.cfg.Client.Resource("", "v1", "serviceaccounts").Namespace(req.Name).Create(ctx, sa)
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		return reconcile.Result{}, nil
	case apierrors.IsNotFound(err), apierrors.Code(err) == 403:
		// The namespace is gone or terminating; its events will tell us.
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, fmt.Errorf("creating default service account in %s: %w", req.Name, err)
}
