package controllertest

import (
	"context"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// FakeKubelet stands in for node agents: it marks pods Running and Ready
// through /status as soon as they exist (or, with onlyBound, once they have
// a spec.nodeName), and completes the graceful deletion of pods being
// deleted (as a kubelet does once their containers stop). Run it with
// Env.Run or as a goroutine.
func FakeKubelet(cli *client.Client, onlyBound bool) func(context.Context) error {
	return func(ctx context.Context) error {
		inf := informer.New(informer.Config{Client: cli, Version: "v1", Resource: "pods"})
		pods := cli.Resource("", "v1", "pods")
		work := make(chan api.Object, 4096)
		mark := func(p api.Object) {
			if ok, _ := meta.PodReady(p); ok && !meta.Deleting(p) || onlyBound && api.NestedString(p, "spec", "nodeName") == "" {
				return
			}
			select {
			case work <- p:
			default:
			}
		}
		inf.AddHandler(informer.HandlerFuncs{AddFunc: mark, UpdateFunc: func(_, p api.Object) { mark(p) }})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-ctx.Done():
					return
				case p := <-work:
					if meta.Deleting(p) {
						zero := map[string]any{"gracePeriodSeconds": 0, "preconditions": map[string]any{"uid": p.UID()}}
						pods.Namespace(p.Namespace()).Delete(ctx, p.Name(), zero)
						continue
					}
					x := p.DeepCopy()
					ts := time.Now().UTC().Format(time.RFC3339)
					x["status"] = map[string]any{"phase": "Running", "conditions": []any{
						map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": ts}}}
					if _, err := pods.Namespace(p.Namespace()).Update(ctx, x, "status"); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
						// Retried when the next event for the pod arrives.
						continue
					}
				}
			}
		}()
		err := inf.Run(ctx)
		<-done
		return err
	}
}
