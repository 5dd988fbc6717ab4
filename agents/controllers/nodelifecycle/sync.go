package nodelifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

var _ reconcile.Reconciler = (*Controller)(nil)

// Reconcile checks one node's Lease and taints, marks or evicts as due.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	node, ok := c.nodes.Store().Get(req.Name)
	if !ok {
		c.mu.Lock()
		delete(c.seen, req.Name)
		c.mu.Unlock()
		return reconcile.Result{}, nil
	}
	node = meta.WithKind(node, "v1", "Node")
	now := c.now()
	stale := now.Sub(c.lastSeen(req.Name))
	taint, tainted := UnreachableTaintOf(node)
	if stale < c.cfg.GracePeriod {
		if tainted {
			return reconcile.Result{}, c.untaint(ctx, node)
		}
		return reconcile.Result{RequeueAfter: c.cfg.GracePeriod - stale}, nil
	}
	if !tainted {
		return reconcile.Result{}, c.markUnreachable(ctx, node, now)
	}
	added, _ := time.Parse(time.RFC3339, fmt.Sprint(taint["timeAdded"]))
	var next time.Duration
	for _, p := range c.pods.Store().ByIndex(informer.IndexNodeName, req.Name) {
		if meta.Deleting(p) {
			continue
		}
		wait, evict := EvictionDue(p, added, c.cfg.EvictionTimeout, now)
		if evict {
			if err := c.evict(ctx, p); err != nil {
				return reconcile.Result{}, err
			}
		} else if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
	}
	return reconcile.Result{RequeueAfter: next}, nil
}

// UnreachableTaintOf returns node's unreachable NoExecute taint.
func UnreachableTaintOf(node api.Object) (map[string]any, bool) {
	for _, t := range api.NestedSlice(node, "spec", "taints") {
		if m, ok := t.(map[string]any); ok && m["key"] == UnreachableTaint && m["effect"] == "NoExecute" {
			return m, true
		}
	}
	return nil, false
}

// EvictionDue says whether pod p, on a node tainted unreachable at added,
// is due for eviction at now, or how long until it will be (0: never).
func EvictionDue(p api.Object, added time.Time, def time.Duration, now time.Time) (wait time.Duration, evict bool) {
	toleration, matched := def, false
	for _, t := range api.NestedSlice(p, "spec", "tolerations") {
		m, ok := t.(map[string]any)
		if !ok {
			continue
		}
		key, _ := m["key"].(string)
		op, _ := m["operator"].(string)
		effect, _ := m["effect"].(string)
		if effect != "" && effect != "NoExecute" || key != "" && key != UnreachableTaint || key == "" && op != "Exists" {
			continue
		}
		secs := api.Nested(m, "tolerationSeconds")
		if secs == nil {
			return 0, false // tolerates forever
		}
		d := time.Duration(api.Int64(secs)) * time.Second
		if !matched || d < toleration {
			toleration, matched = d, true
		}
	}
	due := added.Add(toleration)
	if !now.Before(due) {
		return 0, true
	}
	return due.Sub(now), false
}

// markUnreachable sets Ready=Unknown and adds the NoExecute taint.
func (c *Controller) markUnreachable(ctx context.Context, node api.Object, now time.Time) error {
	nodes := c.cfg.Client.Resource("", "v1", "nodes")
	x := node.DeepCopy()
	meta.SetCondition(x, map[string]any{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
		"message": "Kubelet stopped posting node status."}, now)
	updated, err := nodes.Update(ctx, x, "status")
	if err != nil {
		return fmt.Errorf("marking node %s unknown: %w", node.Name(), err)
	}
	c.cfg.Recorder.Eventf(node, events.Normal, "NodeNotReady", "Node %s status is now: NodeNotReady", node.Name())
	taints := append(api.NestedSlice(updated, "spec", "taints"), map[string]any{"key": UnreachableTaint, "effect": "NoExecute",
		"timeAdded": now.UTC().Format(time.RFC3339)})
	api.SetNested(updated, taints, "spec", "taints")
	if _, err := nodes.Update(ctx, updated, ""); err != nil {
		return fmt.Errorf("tainting node %s: %w", node.Name(), err)
	}
	return nil
}

// untaint removes the unreachable taint from a node whose Lease is renewed.
func (c *Controller) untaint(ctx context.Context, node api.Object) error {
	x := node.DeepCopy()
	var keep []any
	for _, t := range api.NestedSlice(x, "spec", "taints") {
		if m, ok := t.(map[string]any); ok && m["key"] == UnreachableTaint {
			continue
		}
		keep = append(keep, t)
	}
	if keep == nil {
		delete(api.NestedMap(x, "spec"), "taints")
	} else {
		api.SetNested(x, keep, "spec", "taints")
	}
	if _, err := c.cfg.Client.Resource("", "v1", "nodes").Update(ctx, x, ""); err != nil {
		return fmt.Errorf("untainting node %s: %w", node.Name(), err)
	}
	c.cfg.Recorder.Eventf(node, events.Normal, "NodeReachable", "Node %s Lease is renewed again", node.Name())
	return nil
}

func (c *Controller) evict(ctx context.Context, p api.Object) error {
	_, err := c.cfg.Client.Resource("", "v1", "pods").Namespace(p.Namespace()).Delete(ctx, p.Name(),
		map[string]any{"preconditions": map[string]any{"uid": p.UID()}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("evicting pod %s: %w", informer.Key(p), err)
	}
	c.cfg.Recorder.Eventf(meta.WithKind(p, "v1", "Pod"), events.Normal, "TaintManagerEviction", "Marking for deletion Pod %s", informer.Key(p))
	return nil
}
