package replicaset

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/capstan-io/capstan/agents/controllers/meta"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/internal/wait"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

var _ reconcile.Reconciler = (*Controller)(nil)

// Reconcile syncs one ReplicaSet: claim pods, create or delete towards
// spec.replicas, then write status.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	rs, ok := c.rss.Store().Get(key)
	if !ok {
		c.exp.Delete(key)
		return reconcile.Result{}, nil
	}
	rs = meta.WithKind(rs, "apps/v1", "ReplicaSet")
	pods := c.pods.Store().ByIndex(informer.IndexNamespace, req.Namespace)
	owned, adopt, release := Claim(rs, pods)
	for _, p := range adopt {
		if err := c.setController(ctx, p, rs, true); err != nil {
			return reconcile.Result{}, err
		}
		owned = append(owned, p)
	}
	for _, p := range release {
		if err := c.setController(ctx, p, rs, false); err != nil {
			return reconcile.Result{}, err
		}
	}
	var manageErr error
	if c.exp.Satisfied(key) && !meta.Deleting(rs) {
		manageErr = c.manage(ctx, rs, owned)
	}
	status, requeue := Status(rs, owned, c.now())
	if err := c.writeStatus(ctx, rs, status); err != nil {
		return reconcile.Result{}, err
	}
	if apierrors.Code(manageErr) == http.StatusForbidden {
		// Typically a terminating namespace: retrying cannot help, and the
		// ReplicaSet's next change requeues it.
		return reconcile.Result{}, reconcile.TerminalError(manageErr)
	}
	if manageErr != nil {
		return reconcile.Result{}, manageErr
	}
	return reconcile.Result{RequeueAfter: requeue}, nil
}

// manage creates or deletes pods towards spec.replicas.
func (c *Controller) manage(ctx context.Context, rs api.Object, owned []api.Object) error {
	key := informer.Key(rs)
	create, del := Diff(rs, owned)
	create = min(create, c.cfg.BurstReplicas)
	if len(del) > c.cfg.BurstReplicas {
		del = del[:c.cfg.BurstReplicas]
	}
	switch {
	case create > 0:
		c.exp.Expect(key, create, nil)
		created := 0
		for _, batch := range SlowStartBatches(create) {
			n, err := c.createBatch(ctx, rs, batch)
			created += n
			if err != nil {
				// Pods never asked for will never be observed.
				for range create - created {
					c.exp.CreationObserved(key)
				}
				return err
			}
		}
	case len(del) > 0:
		keys := make([]string, len(del))
		for i, p := range del {
			keys[i] = informer.Key(p)
		}
		c.exp.Expect(key, 0, keys)
		var (
			wg    sync.WaitGroup
			errMu sync.Mutex
			first error
		)
		for _, p := range del {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := c.deletePod(ctx, rs, p)
				if err != nil {
					c.exp.DeletionObserved(key, informer.Key(p))
					errMu.Lock()
					first = cmpErr(first, err)
					errMu.Unlock()
				}
			}()
		}
		wg.Wait()
		return first
	}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// createBatch creates n pods in parallel and returns how many were asked for
// (successes and failures alike) and the first error.
func (c *Controller) createBatch(ctx context.Context, rs api.Object, n int) (int, error) {
	key := informer.Key(rs)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			created, err := c.createPod(ctx, rs)
			if err != nil {
				c.exp.CreationObserved(key)
				c.cfg.Recorder.Eventf(rs, events.Warning, "FailedCreate", "Error creating: %v", err)
				mu.Lock()
				first = cmpErr(first, err)
				mu.Unlock()
				return
			}
			c.cfg.Recorder.Eventf(rs, events.Normal, "SuccessfulCreate", "Created pod: %s", created.Name())
		}()
	}
	wg.Wait()
	if first != nil {
		// The failed ones were already counted as observed; report the batch as
		// fully asked for.
		return n, fmt.Errorf("creating pods for %s: %w", key, first)
	}
	return n, nil
}

// createPod creates one pod for rs. The name is chosen here, not by the hub
// (generateName), so that a create whose answer was lost with its
// connection can be retried without risk: AlreadyExists from our own pod
// means the first attempt succeeded. Only definite failures are errors.
func (c *Controller) createPod(ctx context.Context, rs api.Object) (api.Object, error) {
	pods := c.cfg.Client.Resource("", "v1", "pods").Namespace(rs.Namespace())
	pod := PodFromTemplate(rs)
	md := pod.Meta()
	delete(md, "generateName")
	md["name"] = rs.Name() + "-" + randomSuffix()
	var err error
	for attempt := range 5 {
		if attempt > 0 && !wait.Sleep(ctx, time.Duration(attempt)*100*time.Millisecond) {
			return nil, ctx.Err()
		}
		var created api.Object
		created, err = pods.Create(ctx, pod)
		var se *apierrors.StatusError
		switch {
		case err == nil:
			return created, nil
		case apierrors.IsAlreadyExists(err):
			existing, gerr := pods.Get(ctx, pod.Name())
			if ref, ok := meta.ControllerRef(existing); gerr == nil && ok && ref.UID == rs.UID() {
				return existing, nil
			}
			return nil, err
		case errors.As(err, &se):
			return nil, err // the hub answered: a definite failure
		}
	}
	return nil, err
}

// randomSuffix is five characters of the alphabet Kubernetes uses for
// generated names.
func randomSuffix() string {
	const alphanums = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphanums[rand.IntN(len(alphanums))]
	}
	return string(b)
}

func (c *Controller) deletePod(ctx context.Context, rs, p api.Object) error {
	_, err := c.cfg.Client.Resource("", "v1", "pods").Namespace(p.Namespace()).Delete(ctx, p.Name(),
		map[string]any{"preconditions": map[string]any{"uid": p.UID()}})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		c.cfg.Recorder.Eventf(rs, events.Warning, "FailedDelete", "Error deleting: %v", err)
		return fmt.Errorf("deleting pod %s: %w", informer.Key(p), err)
	}
	c.cfg.Recorder.Eventf(rs, events.Normal, "SuccessfulDelete", "Deleted pod: %s", p.Name())
	return nil
}

// PodFromTemplate is a new pod for rs, controlled by it.
func PodFromTemplate(rs api.Object) api.Object {
	tmpl := api.NestedMap(rs, "spec", "template")
	md := map[string]any{"generateName": rs.Name() + "-", "namespace": rs.Namespace()}
	for _, f := range []string{"labels", "annotations"} {
		if v := api.NestedMap(tmpl, "metadata", f); v != nil {
			md[f] = api.DeepCopyValue(v)
		}
	}
	md["ownerReferences"] = []any{meta.NewControllerRef(meta.WithKind(rs, "apps/v1", "ReplicaSet")).Map()}
	spec, _ := api.DeepCopyValue(api.NestedMap(tmpl, "spec")).(map[string]any)
	return api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
}

// setController adopts (add) or releases (!add) pod p on behalf of rs.
func (c *Controller) setController(ctx context.Context, p, rs api.Object, add bool) error {
	p = p.DeepCopy()
	var refs []meta.OwnerRef
	for _, r := range meta.OwnerRefs(p) {
		if r.UID != rs.UID() {
			refs = append(refs, r)
		}
	}
	if add {
		refs = append(refs, meta.NewControllerRef(meta.WithKind(rs, "apps/v1", "ReplicaSet")))
	}
	meta.SetOwnerRefs(p, refs)
	_, err := c.cfg.Client.Resource("", "v1", "pods").Namespace(p.Namespace()).Update(ctx, p, "")
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("updating owner of pod %s: %w", informer.Key(p), err)
	}
	return nil
}

// writeStatus writes status if it differs from what rs has.
func (c *Controller) writeStatus(ctx context.Context, rs api.Object, status map[string]any) error {
	cur := api.NestedMap(rs, "status")
	same := true
	for k, v := range status {
		if k == "conditions" {
			continue
		}
		same = same && api.Int64(cur[k]) == api.Int64(v)
	}
	if same {
		return nil
	}
	o := rs.DeepCopy()
	o["status"] = status
	_, err := c.cfg.Client.Resource("apps", "v1", "replicasets").Namespace(rs.Namespace()).Update(ctx, o, "status")
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// A newer version is on its way to the cache and will requeue us.
		return nil
	}
	if err != nil {
		return fmt.Errorf("updating status of %s: %w", informer.Key(rs), err)
	}
	return nil
}
