package deployment

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// Status computes d's status from its ReplicaSets. progressed says this
// sync changed something, which renews the progress deadline.
func Status(d, newRS api.Object, olds []api.Object, progressed bool, now time.Time) (st map[string]any, requeue time.Duration) {
	var total, ready, available, updated int64
	all := olds
	if newRS != nil {
		all = append([]api.Object{newRS}, olds...)
		updated = api.Int64(api.Nested(newRS, "status", "replicas"))
	}
	for _, rs := range all {
		total += api.Int64(api.Nested(rs, "status", "replicas"))
		ready += api.Int64(api.Nested(rs, "status", "readyReplicas"))
		available += api.Int64(api.Nested(rs, "status", "availableReplicas"))
	}
	want := replicas(d)
	st = map[string]any{
		"observedGeneration": d.Generation(), "replicas": total, "updatedReplicas": updated,
		"readyReplicas": ready, "availableReplicas": available, "unavailableReplicas": max(want-available, 0),
	}
	if cc := api.Nested(d, "status", "collisionCount"); cc != nil {
		st["collisionCount"] = cc
	}
	prev := api.NestedMap(d, "status")
	for _, k := range []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"} {
		progressed = progressed || api.Int64(prev[k]) != api.Int64(st[k])
	}
	x := api.Object{"status": map[string]any{"conditions": api.DeepCopyValue(api.NestedSlice(d, "status", "conditions"))}}
	if available >= want-maxUnavailable(d) {
		meta.SetCondition(x, cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."), now)
	} else {
		meta.SetCondition(x, cond("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."), now)
	}
	complete := newRS != nil && updated == want && available >= want && total == want
	name := "ReplicaSet"
	if newRS != nil {
		name = "ReplicaSet \"" + newRS.Name() + "\""
	}
	prog, _ := meta.Condition(x, "Progressing")
	deadline := time.Duration(meta.Int32(d, 600, "spec", "progressDeadlineSeconds")) * time.Second
	switch {
	case paused(d):
		meta.SetCondition(x, cond("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused"), now)
	case complete:
		c := cond("Progressing", "True", "NewReplicaSetAvailable", name+" has successfully progressed.")
		if prog != nil && prog["reason"] == "NewReplicaSetAvailable" {
			c["lastUpdateTime"] = prog["lastUpdateTime"]
		}
		setKeepingUpdate(x, c, prog, now)
	case progressed || prog == nil || prog["reason"] == "DeploymentPaused" || prog["reason"] == "NewReplicaSetAvailable":
		setProgress(x, cond("Progressing", "True", "ReplicaSetUpdated", name+" is progressing."), now)
		requeue = deadline
	default:
		last, _ := time.Parse(time.RFC3339, fmt.Sprint(prog["lastUpdateTime"]))
		if prog["reason"] != "ProgressDeadlineExceeded" && !last.IsZero() && now.Sub(last) >= deadline {
			meta.SetCondition(x, cond("Progressing", "False", "ProgressDeadlineExceeded", name+" has timed out progressing."), now)
		} else if !last.IsZero() {
			requeue = last.Add(deadline).Sub(now)
		}
	}
	st["conditions"] = api.NestedSlice(x, "status", "conditions")
	return st, requeue
}

func cond(typ, status, reason, msg string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg}
}

// setProgress sets a condition and stamps lastUpdateTime now.
func setProgress(x api.Object, c map[string]any, now time.Time) {
	c["lastUpdateTime"] = now.UTC().Format(time.RFC3339)
	meta.SetCondition(x, c, now)
	setUpdate(x, c["type"], c["lastUpdateTime"])
}

// setKeepingUpdate sets a condition, stamping lastUpdateTime only when the
// reason changes.
func setKeepingUpdate(x api.Object, c, prev map[string]any, now time.Time) {
	ts := any(now.UTC().Format(time.RFC3339))
	if prev != nil && prev["reason"] == c["reason"] && prev["lastUpdateTime"] != nil {
		ts = prev["lastUpdateTime"]
	}
	meta.SetCondition(x, c, now)
	setUpdate(x, c["type"], ts)
}

func setUpdate(x api.Object, typ, ts any) {
	for _, v := range api.NestedSlice(x, "status", "conditions") {
		if m, ok := v.(map[string]any); ok && m["type"] == typ {
			m["lastUpdateTime"] = ts
		}
	}
}

// writeStatus writes d's status and revision annotation if they changed.
func (c *Controller) writeStatus(ctx context.Context, d, newRS api.Object, olds []api.Object, changed bool) (reconcile.Result, error) {
	if newRS != nil && revision(newRS) != revision(d) {
		x := d.DeepCopy()
		anns := map[string]any{}
		for k, v := range x.StringMap("annotations") {
			anns[k] = v
		}
		anns[RevisionAnnotation] = strconv.FormatInt(revision(newRS), 10)
		api.SetNested(x, anns, "metadata", "annotations")
		_, err := c.depClient(d).Update(ctx, x, "")
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil // a newer version requeues us
		}
		if err != nil {
			return reconcile.Result{}, fmt.Errorf("annotating revision of %s: %w", d.Name(), err)
		}
		return reconcile.Result{}, nil // the update requeues us for status
	}
	st, requeue := Status(d, newRS, olds, changed, c.now())
	if statusEqual(api.NestedMap(d, "status"), st) {
		return reconcile.Result{RequeueAfter: requeue}, nil
	}
	x := d.DeepCopy()
	x["status"] = st
	_, err := c.depClient(d).Update(ctx, x, "status")
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("updating status of %s: %w", d.Name(), err)
	}
	return reconcile.Result{RequeueAfter: requeue}, nil
}

func statusEqual(a, b map[string]any) bool {
	for _, k := range []string{"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas", "collisionCount"} {
		if api.Int64(a[k]) != api.Int64(b[k]) {
			return false
		}
	}
	ac, bc := api.NestedSlice(a, "conditions"), api.NestedSlice(b, "conditions")
	if len(ac) != len(bc) {
		return false
	}
	for i := range ac {
		am, _ := ac[i].(map[string]any)
		bm, _ := bc[i].(map[string]any)
		for _, k := range []string{"type", "status", "reason", "lastUpdateTime"} {
			if fmt.Sprint(am[k]) != fmt.Sprint(bm[k]) {
				return false
			}
		}
	}
	return true
}
