package reconcile_test

import (
	"context"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/agents/reconcile"
	"github.com/capstan-io/capstan/apiserver/client"
)

// A controller in the sample-controller shape: an informer feeds keys of its
// primary resource into the controller's queue, and a level-triggered
// reconcile reads the cache, takes one step and writes status. Informer and
// controller each own their goroutines; Run blocks until ctx ends.
func Example() {
	var cli *client.Client // from client.New(client.LoadKubeconfig(path))
	ctx := context.Background()

	// One shared informer per resource for every controller in the process.
	informers := informer.NewFactory(cli, 10*time.Minute, slog.Default())
	rs := informers.For("apps", "v1", "replicasets")
	pods := informers.For("", "v1", "pods")

	c := reconcile.New("replicaset", reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		obj, ok := rs.Store().Get(req.String())
		if !ok {
			return reconcile.Result{}, nil // deleted: nothing to do
		}
		owned := pods.Store().ByIndex(informer.IndexOwner, obj.UID())
		_ = owned // compare with spec.replicas, create or delete one batch, write status
		return reconcile.Result{}, nil
	}), reconcile.Options{Logger: slog.Default(), WaitFor: []func() bool{rs.HasSynced, pods.HasSynced}})

	rs.AddHandler(informer.EnqueueHandler(c.Queue()))
	// Changes to a pod wake its owner.
	pods.AddHandler(informer.EnqueueOwnerHandler(c.Queue(), "ReplicaSet"))

	go informers.Run(ctx) // after every handler is added
	_ = c.Run(ctx, 4)
}
