package deployment

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

func (c *Controller) rsClient(d api.Object) *client.ResourceClient {
	return c.cfg.Client.Resource("apps", "v1", "replicasets").Namespace(d.Namespace())
}

func (c *Controller) depClient(d api.Object) *client.ResourceClient {
	return c.cfg.Client.Resource("apps", "v1", "deployments").Namespace(d.Namespace())
}

// errStale says a write met a newer version than the cache holds; its
// watch event will requeue the Deployment, so the sync stops without a
// (backed-off) retry.
var errStale = errors.New("deployment: cache behind the hub")

func recreate(d api.Object) bool {
	return api.NestedString(d, "spec", "strategy", "type") == "Recreate"
}

func maxSurge(d api.Object) int64 {
	if recreate(d) {
		return 0
	}
	return meta.IntOrPercent(api.Nested(d, "spec", "strategy", "rollingUpdate", "maxSurge"), "25%", replicas(d), true)
}

func maxUnavailable(d api.Object) int64 {
	if recreate(d) {
		return 0
	}
	u := meta.IntOrPercent(api.Nested(d, "spec", "strategy", "rollingUpdate", "maxUnavailable"), "25%", replicas(d), false)
	if u == 0 && maxSurge(d) == 0 {
		u = 1 // as Kubernetes: both zero would never progress
	}
	return min(u, replicas(d))
}

// rollout takes one step of d's strategy and reports whether it scaled
// anything.
func (c *Controller) rollout(ctx context.Context, d, newRS api.Object, olds []api.Object) (bool, error) {
	oldInfo := make([]RS, len(olds))
	for i, o := range olds {
		oldInfo[i] = info(o)
	}
	var newScale int64
	var oldScales map[string]int64
	if recreate(d) {
		newScale, oldScales = Recreate(replicas(d), info(newRS), oldInfo, c.activePodsOf(olds))
	} else {
		newScale, oldScales = Rolling(Strategy{Replicas: replicas(d), MaxSurge: maxSurge(d), MaxUnavailable: maxUnavailable(d)}, info(newRS), oldInfo)
	}
	changed := false
	for _, o := range olds {
		if s := oldScales[o.Name()]; s != rsReplicas(o) {
			if err := c.scale(ctx, d, o, s); err != nil {
				return changed, err
			}
			changed = true
		}
	}
	if newScale != rsReplicas(newRS) {
		if err := c.scale(ctx, d, newRS, newScale); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// activePodsOf counts the active pods the given ReplicaSets control.
func (c *Controller) activePodsOf(rss []api.Object) int {
	n := 0
	for _, rs := range rss {
		for _, p := range c.pods.Store().ByIndex(informer.IndexOwner, rs.UID()) {
			if meta.PodActive(p) || meta.Deleting(p) {
				n++
			}
		}
	}
	return n
}

// scale sets rs's replicas (and the desired-replicas annotations) and records
// a ScalingReplicaSet event on d.
func (c *Controller) scale(ctx context.Context, d, rs api.Object, to int64) error {
	from := rsReplicas(rs)
	x := rs.DeepCopy()
	api.SetNested(x, to, "spec", "replicas")
	anns := map[string]any{}
	for k, v := range x.StringMap("annotations") {
		anns[k] = v
	}
	anns[DesiredReplicasAnnotation] = strconv.FormatInt(replicas(d), 10)
	anns[MaxReplicasAnnotation] = strconv.FormatInt(replicas(d)+maxSurge(d), 10)
	api.SetNested(x, anns, "metadata", "annotations")
	if _, err := c.rsClient(d).Update(ctx, x, ""); err != nil {
		if apierrors.IsConflict(err) {
			return errStale
		}
		return fmt.Errorf("scaling replica set %s: %w", rs.Name(), err)
	}
	dir := "up"
	if to < from {
		dir = "down"
	}
	c.cfg.Recorder.Eventf(d, events.Normal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", dir, rs.Name(), from, to)
	return nil
}

// cleanup deletes the oldest idle old ReplicaSets beyond revisionHistoryLimit.
func (c *Controller) cleanup(ctx context.Context, d api.Object, olds []api.Object) error {
	limit := meta.Int32(d, 10, "spec", "revisionHistoryLimit")
	var idle []api.Object
	for _, o := range olds {
		if rsReplicas(o) == 0 && api.Int64(api.Nested(o, "status", "replicas")) == 0 && !meta.Deleting(o) {
			idle = append(idle, o)
		}
	}
	if int64(len(idle)) <= limit {
		return nil
	}
	sort.Slice(idle, func(i, j int) bool { return revision(idle[i]) < revision(idle[j]) })
	for _, o := range idle[:int64(len(idle))-limit] {
		_, err := c.rsClient(d).Delete(ctx, o.Name(), map[string]any{"preconditions": map[string]any{"uid": o.UID()}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting old replica set %s: %w", o.Name(), err)
		}
	}
	return nil
}
