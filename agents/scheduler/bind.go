package scheduler

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// bind writes one binding. On failure the assumption is dropped and the pod
// retried with backoff, unless it is gone or already bound.
func (s *Scheduler) bind(ctx context.Context, b binding) {
	body, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Binding",
		"metadata": map[string]any{"name": b.pod.Name, "namespace": b.pod.Namespace, "uid": b.pod.UID},
		"target":   map[string]any{"apiVersion": "v1", "kind": "Node", "name": b.node},
	})
	pods := s.cfg.Client.Resource("", "v1", "pods").Namespace(b.pod.Namespace)
	_, err := s.cfg.Client.Do(ctx, client.Request{Method: http.MethodPost, Path: pods.Path(b.pod.Name, "binding"), Body: body})
	if err != nil {
		s.cache.Forget(b.pod.Key)
		if ctx.Err() != nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return
		}
		s.log.Warn("binding failed, retrying", "pod", b.pod.Key, "node", b.node, "err", err)
		s.queue.AddRateLimited(b.pod.Key)
		return
	}
	s.queue.Forget(b.pod.Key)
	s.log.Debug("bound", "pod", b.pod.Key, "node", b.node)
	s.recorder.Eventf(b.pod.Object, events.Normal, "Scheduled", "Successfully assigned %s to %s", b.pod.Key, b.node)
}

// writeUnschedulable tells the user why p fits nowhere: condition
// PodScheduled=False/Unschedulable and a FailedScheduling event.
func (s *Scheduler) writeUnschedulable(ctx context.Context, p *Pod, fe *FitError) {
	msg := fe.Error()
	s.log.Debug("unschedulable", "pod", p.Key, "reason", msg)
	s.recorder.Event(p.Object, events.Warning, "FailedScheduling", msg)
	if cur := podScheduledCondition(p); cur["status"] == "False" && cur["reason"] == "Unschedulable" && cur["message"] == msg {
		return // already says so; writing again would only wake the watchers
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []any{map[string]any{
		"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": msg,
		"lastProbeTime": nil, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}}}})
	pods := s.cfg.Client.Resource("", "v1", "pods").Namespace(p.Namespace)
	if _, err := pods.Patch(ctx, p.Name, "status", "application/strategic-merge-patch+json", patch); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
		s.log.Warn("writing PodScheduled condition", "pod", p.Key, "err", err)
	}
}

// podScheduledCondition returns p's PodScheduled condition, or nil.
func podScheduledCondition(p *Pod) map[string]any {
	for _, c := range api.NestedSlice(p.Object, "status", "conditions") {
		if m, _ := c.(map[string]any); m["type"] == "PodScheduled" {
			return m
		}
	}
	return nil
}
