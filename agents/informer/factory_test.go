package informer_test

import (
	"context"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

func TestFactoryShares(t *testing.T) {
	hub := apiservertest.Start(t)
	f := informer.NewFactory(hub.Client, 0, nil)
	cms := f.For("", "v1", "configmaps")
	if f.For("", "v1", "configmaps") != cms {
		t.Fatal("For returned a second informer for the same resource")
	}
	ns := f.For("", "v1", "namespaces")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	eventually(t, "factory synced", f.HasSynced)
	if ns.Store().Len() == 0 {
		t.Fatal("namespaces informer is empty after sync")
	}
	if _, err := hub.Client.Resource("", "v1", "configmaps").Namespace("default").Create(ctx, configMap("shared")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "configmap in the shared cache", func() bool { _, ok := cms.Store().Get("default/shared"); return ok })
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
}
