package deployment

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

var _ reconcile.Reconciler = (*Controller)(nil)

// Reconcile takes one step of a Deployment's rollout and writes its status.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	d, ok := c.deps.Store().Get(req.String())
	if !ok {
		return reconcile.Result{}, nil
	}
	d = meta.WithKind(d, "apps/v1", "Deployment")
	if meta.Deleting(d) {
		return reconcile.Result{}, nil
	}
	owned, err := c.claim(ctx, d)
	if err != nil {
		return reconcile.Result{}, err
	}
	newRS, olds := splitNewOld(d, owned)
	changed := false
	if !paused(d) {
		if newRS == nil {
			if newRS, err = c.createNewRS(ctx, d, olds); err != nil || newRS == nil {
				return reconcile.Result{}, err
			}
			changed = true
		} else if newRS, err = c.ensureRevision(ctx, d, newRS, olds); err != nil {
			return reconcile.Result{}, err
		}
		step, err := c.rollout(ctx, d, newRS, olds)
		if errors.Is(err, errStale) {
			return reconcile.Result{}, nil
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		changed = changed || step
		if err := c.cleanup(ctx, d, olds); err != nil {
			return reconcile.Result{}, err
		}
	} else if newRS != nil && len(activeOlds(olds)) == 0 && rsReplicas(newRS) != replicas(d) {
		// A paused Deployment still scales.
		if err := c.scale(ctx, d, newRS, replicas(d)); err != nil {
			return reconcile.Result{}, err
		}
	}
	return c.writeStatus(ctx, d, newRS, olds, changed)
}

func paused(d api.Object) bool { b, _ := api.Nested(d, "spec", "paused").(bool); return b }

func replicas(d api.Object) int64 { return meta.Int32(d, 1, "spec", "replicas") }

func rsReplicas(rs api.Object) int64 { return meta.Int32(rs, 1, "spec", "replicas") }

func revision(o api.Object) int64 {
	n, _ := strconv.ParseInt(o.StringMap("annotations")[RevisionAnnotation], 10, 64)
	return n
}

func info(rs api.Object) RS {
	return RS{Name: rs.Name(), Replicas: rsReplicas(rs), Available: api.Int64(api.Nested(rs, "status", "availableReplicas")),
		Revision: revision(rs), Created: meta.CreationTime(rs)}
}

func activeOlds(olds []api.Object) []api.Object {
	var out []api.Object
	for _, o := range olds {
		if rsReplicas(o) > 0 || api.Int64(api.Nested(o, "status", "replicas")) > 0 {
			out = append(out, o)
		}
	}
	return out
}

// claim returns the ReplicaSets d controls, adopting matching orphans.
func (c *Controller) claim(ctx context.Context, d api.Object) ([]api.Object, error) {
	sel, ok := meta.ParseSelector(api.NestedMap(d, "spec", "selector"))
	var out []api.Object
	for _, rs := range c.rss.Store().ByIndex(informer.IndexNamespace, d.Namespace()) {
		ref, has := meta.ControllerRef(rs)
		switch {
		case has && ref.UID == d.UID():
			out = append(out, rs)
		case !has && ok && sel.Matches(rs.Labels()) && !meta.Deleting(rs):
			x := rs.DeepCopy()
			meta.SetOwnerRefs(x, append(meta.OwnerRefs(x), meta.NewControllerRef(d)))
			updated, err := c.rsClient(d).Update(ctx, x, "")
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("adopting replica set %s: %w", rs.Name(), err)
			}
			if err == nil {
				out = append(out, updated)
			}
		}
	}
	return out, nil
}

// splitNewOld finds the ReplicaSet whose template is d's.
func splitNewOld(d api.Object, rss []api.Object) (newRS api.Object, olds []api.Object) {
	tmpl := api.NestedMap(d, "spec", "template")
	sort.Slice(rss, func(i, j int) bool { return meta.CreationTime(rss[i]).Before(meta.CreationTime(rss[j])) })
	for _, rs := range rss {
		if newRS == nil && equalIgnoreHash(tmpl, api.NestedMap(rs, "spec", "template")) {
			newRS = rs
			continue
		}
		olds = append(olds, rs)
	}
	return newRS, olds
}

// equalIgnoreHash compares pod templates without the pod-template-hash label.
func equalIgnoreHash(a, b map[string]any) bool {
	return reflect.DeepEqual(Normalize(a), Normalize(b))
}

// Normalize is a copy of a pod template without the pod-template-hash label
// and without null or empty metadata fields (kubectl rollout undo sends
// "creationTimestamp": null, which a typed Kubernetes decoder drops).
func Normalize(t map[string]any) map[string]any {
	t, _ = api.DeepCopyValue(t).(map[string]any)
	if t == nil {
		t = map[string]any{}
	}
	md := api.NestedMap(t, "metadata")
	if md == nil {
		return t
	}
	if l, ok := md["labels"].(map[string]any); ok {
		delete(l, HashLabel)
	}
	for k, v := range md {
		if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
			delete(md, k)
		}
	}
	if len(md) == 0 {
		delete(t, "metadata")
	}
	return t
}

func maxRevision(olds []api.Object) int64 {
	var m int64
	for _, o := range olds {
		m = max(m, revision(o))
	}
	return m
}

// createNewRS creates the ReplicaSet for d's current template, at zero
// replicas for a rollout to scale up (or at full size for a first rollout).
func (c *Controller) createNewRS(ctx context.Context, d api.Object, olds []api.Object) (api.Object, error) {
	collisions := api.Int64(api.Nested(d, "status", "collisionCount"))
	tmpl := Normalize(api.NestedMap(d, "spec", "template"))
	hash := Hash(tmpl, collisions)
	labels := map[string]any{}
	for k, v := range api.NestedMap(tmpl, "metadata", "labels") {
		labels[k] = v
	}
	labels[HashLabel] = hash
	api.SetNested(tmpl, labels, "metadata", "labels")
	sel, _ := api.DeepCopyValue(api.NestedMap(d, "spec", "selector")).(map[string]any)
	if sel == nil {
		sel = map[string]any{}
	}
	ml, _ := sel["matchLabels"].(map[string]any)
	if ml == nil {
		ml = map[string]any{}
	}
	ml[HashLabel] = hash
	sel["matchLabels"] = ml
	start := int64(0)
	if len(activeOlds(olds)) == 0 {
		start = replicas(d)
	}
	ann := map[string]any{
		RevisionAnnotation:        strconv.FormatInt(maxRevision(olds)+1, 10),
		DesiredReplicasAnnotation: strconv.FormatInt(replicas(d), 10),
		MaxReplicasAnnotation:     strconv.FormatInt(replicas(d)+maxSurge(d), 10),
	}
	if cc, ok := d.StringMap("annotations")[ChangeCauseAnnotation]; ok {
		ann[ChangeCauseAnnotation] = cc
	}
	rs := api.Object{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": d.Name() + "-" + hash, "namespace": d.Namespace(), "labels": api.DeepCopyValue(labels),
			"annotations": ann, "ownerReferences": []any{meta.NewControllerRef(d).Map()}},
		"spec": map[string]any{"replicas": start, "minReadySeconds": meta.Int32(d, 0, "spec", "minReadySeconds"),
			"selector": sel, "template": tmpl}}
	created, err := c.rsClient(d).Create(ctx, rs)
	switch {
	case apierrors.IsAlreadyExists(err):
		existing, gerr := c.rsClient(d).Get(ctx, rs.Name())
		if gerr == nil && equalIgnoreHash(api.NestedMap(existing, "spec", "template"), api.NestedMap(d, "spec", "template")) {
			return nil, nil // our cache is behind; its event requeues us
		}
		// A hash collision: bump collisionCount so the next hash differs.
		x := d.DeepCopy()
		api.SetNested(x, collisions+1, "status", "collisionCount")
		if _, err := c.depClient(d).Update(ctx, x, "status"); err != nil && !apierrors.IsConflict(err) {
			return nil, fmt.Errorf("recording hash collision: %w", err)
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("creating replica set for %s: %w", d.Name(), err)
	}
	if start > 0 {
		c.cfg.Recorder.Eventf(d, events.Normal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name(), start)
	}
	return created, nil
}

// ensureRevision makes the new ReplicaSet the latest revision, which it is
// not when a rollback made an old template current again.
func (c *Controller) ensureRevision(ctx context.Context, d, newRS api.Object, olds []api.Object) (api.Object, error) {
	want := max(maxRevision(olds)+1, revision(newRS))
	if revision(newRS) == want {
		return newRS, nil
	}
	x := newRS.DeepCopy()
	ann := x.StringMap("annotations")
	anns := map[string]any{}
	for k, v := range ann {
		anns[k] = v
	}
	anns[RevisionAnnotation] = strconv.FormatInt(want, 10)
	api.SetNested(x, anns, "metadata", "annotations")
	out, err := c.rsClient(d).Update(ctx, x, "")
	if err != nil {
		return nil, fmt.Errorf("updating revision of %s: %w", newRS.Name(), err)
	}
	return out, nil
}
