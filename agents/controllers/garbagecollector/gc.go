package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Name is the controller's name for --controllers.
const Name = "garbagecollector"

// The finalizers of the Foreground and Orphan deletion modes.
const (
	FinalizerForeground = "foregroundDeletion"
	FinalizerOrphan     = "orphan"
)

// Config wires the collector.
type Config struct {
	Client    *client.Client
	Informers *informer.Factory
	Recorder  *events.Recorder
	Logger    *slog.Logger
	Workers   int
	// Resources are the resources covered; default: every built-in resource
	// but events.
	Resources []api.Resource
}

// GC is the garbage collector.
type GC struct {
	cfg       Config
	resources []api.Resource
	infs      []*informer.Informer
	uids      uidIndex
	ctrl      *reconcile.Controller
}

// New registers the collector's handlers on the shared informers.
func New(cfg Config) *GC {
	if cfg.Workers == 0 {
		cfg.Workers = 20
	}
	if cfg.Resources == nil {
		for _, r := range api.Builtin() {
			if r.Name != "events" {
				cfg.Resources = append(cfg.Resources, r)
			}
		}
	}
	g := &GC{cfg: cfg, resources: cfg.Resources, uids: uidIndex{m: map[string]node{}}}
	var synced []func() bool
	for i, r := range g.resources {
		inf := cfg.Informers.For(r.Group, r.Version, r.Name)
		g.infs = append(g.infs, inf)
		synced = append(synced, inf.HasSynced)
		inf.AddHandler(informer.HandlerFuncs{
			AddFunc:    func(o api.Object) { g.observe(i, nil, o) },
			UpdateFunc: func(old, o api.Object) { g.observe(i, old, o) },
			DeleteFunc: func(o api.Object) { g.gone(i, o) },
		})
	}
	g.ctrl = reconcile.New(Name, reconcile.Func(g.Reconcile), reconcile.Options{Logger: cfg.Logger, WaitFor: synced})
	return g
}

// Run collects garbage until ctx ends.
func (g *GC) Run(ctx context.Context) error { return g.ctrl.Run(ctx, g.cfg.Workers) }

func (g *GC) enqueue(n node) { g.ctrl.Queue().Add(n.item()) }

// enqueueOwners queues the owners of o that are waiting on dependents.
func (g *GC) enqueueOwners(o api.Object) {
	for _, r := range meta.OwnerRefs(o) {
		if n, ok := g.uids.get(r.UID); ok {
			g.enqueue(n)
		}
	}
}

func (g *GC) observe(res int, old, o api.Object) {
	n := node{res: res, key: informer.Key(o)}
	g.uids.put(o.UID(), n)
	if len(meta.OwnerRefs(o)) > 0 || meta.Deleting(o) && pending(o) {
		g.enqueue(n)
	}
	if old != nil && meta.Deleting(o) && !meta.Deleting(old) {
		g.enqueueOwners(o)
	}
}

func (g *GC) gone(res int, o api.Object) {
	g.uids.remove(o.UID())
	for _, d := range g.dependents(o.UID()) {
		g.enqueue(d.node)
	}
	g.enqueueOwners(o)
}

// pending reports whether o waits for the collector.
func pending(o api.Object) bool {
	f := o.Finalizers()
	return slices.Contains(f, FinalizerForeground) || slices.Contains(f, FinalizerOrphan)
}

// Reconcile handles one object: finish its own Foreground or Orphan deletion,
// then delete it if all its owners are gone.
func (g *GC) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	n, ok := parseItem(req.String())
	if !ok || n.res >= len(g.infs) {
		return reconcile.Result{}, reconcile.TerminalError(fmt.Errorf("garbagecollector: bad item %q", req.String()))
	}
	o, ok := g.infs[n.res].Store().Get(n.key)
	if !ok {
		return reconcile.Result{}, nil
	}
	if meta.Deleting(o) {
		switch f := o.Finalizers(); {
		case slices.Contains(f, FinalizerOrphan):
			return reconcile.Result{}, g.orphan(ctx, n, o)
		case slices.Contains(f, FinalizerForeground):
			return reconcile.Result{}, g.foreground(ctx, n, o)
		}
	}
	return reconcile.Result{}, g.collect(ctx, n, o)
}

func (g *GC) client(n node, ns string) *client.ResourceClient {
	r := g.resources[n.res]
	return g.cfg.Client.Resource(r.Group, r.Version, r.Name).Namespace(ns)
}

// orphan removes o's UID from its dependents' owner references, then the
// orphan finalizer.
func (g *GC) orphan(ctx context.Context, n node, o api.Object) error {
	for _, d := range g.dependents(o.UID()) {
		err := g.mutate(ctx, d.node, d.obj, func(x api.Object) bool {
			refs := meta.OwnerRefs(x)
			keep := slices.DeleteFunc(slices.Clone(refs), func(r meta.OwnerRef) bool { return r.UID == o.UID() })
			meta.SetOwnerRefs(x, keep)
			return len(keep) != len(refs)
		})
		if err != nil {
			return fmt.Errorf("orphaning %s: %w", d.key, err)
		}
	}
	return g.removeFinalizer(ctx, n, o, FinalizerOrphan)
}

// foreground deletes o's dependents and removes the foregroundDeletion
// finalizer once none that blocks owner deletion is left.
func (g *GC) foreground(ctx context.Context, n node, o api.Object) error {
	blocking := 0
	for _, d := range g.dependents(o.UID()) {
		for _, r := range meta.OwnerRefs(d.obj) {
			if r.UID == o.UID() && r.BlockOwnerDeletion {
				blocking++
			}
		}
		if meta.Deleting(d.obj) {
			continue
		}
		policy := "Background"
		if len(g.dependents(d.obj.UID())) > 0 {
			policy = "Foreground"
		}
		if err := g.delete(ctx, d.node, d.obj, policy); err != nil {
			return err
		}
	}
	if blocking > 0 {
		return nil // their deletion requeues o
	}
	return g.removeFinalizer(ctx, n, o, FinalizerForeground)
}

// collect deletes o if every owner is gone, and drops references to owners
// that are gone if some remain.
func (g *GC) collect(ctx context.Context, n node, o api.Object) error {
	refs := meta.OwnerRefs(o)
	if len(refs) == 0 || meta.Deleting(o) {
		return nil
	}
	var live []meta.OwnerRef
	for _, r := range refs {
		exists, err := g.ownerExists(ctx, o.Namespace(), r)
		if err != nil {
			return err
		}
		if exists {
			live = append(live, r)
		}
	}
	switch {
	case len(live) == len(refs):
		return nil
	case len(live) == 0:
		return g.delete(ctx, n, o, "Background")
	}
	return g.mutate(ctx, n, o, func(x api.Object) bool {
		meta.SetOwnerRefs(x, live)
		return true
	})
}

// ownerExists looks r up in the cache and, if absent there, on the hub, so
// that a cache behind the hub never causes a deletion. Unknown kinds are
// assumed to exist.
func (g *GC) ownerExists(ctx context.Context, ns string, r meta.OwnerRef) (bool, error) {
	if _, ok := g.uids.get(r.UID); ok {
		return true, nil
	}
	for i, res := range g.resources {
		if res.Kind != r.Kind || res.GroupVersion() != r.APIVersion {
			continue
		}
		if !res.Namespaced {
			ns = ""
		}
		live, err := g.client(node{res: i}, ns).Get(ctx, r.Name)
		switch {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("looking up owner %s %s: %w", r.Kind, r.Name, err)
		}
		return live.UID() == r.UID, nil
	}
	return true, nil
}

func (g *GC) delete(ctx context.Context, n node, o api.Object, policy string) error {
	_, err := g.client(n, o.Namespace()).Delete(ctx, o.Name(), map[string]any{
		"propagationPolicy": policy, "preconditions": map[string]any{"uid": o.UID()}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting %s: %w", n.key, err)
	}
	return nil
}

func (g *GC) removeFinalizer(ctx context.Context, n node, o api.Object, fin string) error {
	return g.mutate(ctx, n, o, func(x api.Object) bool {
		f := x.Finalizers()
		keep := slices.DeleteFunc(slices.Clone(f), func(s string) bool { return s == fin })
		x.SetFinalizers(keep)
		return len(keep) != len(f)
	})
}

// mutate applies change to o and writes it back; on a conflict it retries
// on the hub's current version.
func (g *GC) mutate(ctx context.Context, n node, o api.Object, change func(api.Object) bool) error {
	rc := g.client(n, o.Namespace())
	x := o.DeepCopy()
	for range 5 {
		if !change(x) {
			return nil
		}
		_, err := rc.Update(ctx, x, "")
		switch {
		case err == nil, apierrors.IsNotFound(err):
			return nil
		case !apierrors.IsConflict(err):
			return fmt.Errorf("updating %s: %w", n.key, err)
		}
		if x, err = rc.Get(ctx, o.Name()); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("getting %s: %w", n.key, err)
		}
		if x.UID() != o.UID() {
			return nil
		}
	}
	return fmt.Errorf("updating %s: too many conflicts", n.key)
}
