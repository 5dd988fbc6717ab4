package main

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
)

func nodeName(i int) string { return fmt.Sprintf("node-%03d", i) }

// createNodes makes n Ready nodes with allocatable cpu 32, memory 64Gi, pods 110.
func createNodes(ctx context.Context, cli *client.Client, n int) error {
	nodes := cli.Resource("", "v1", "nodes")
	return parallel(ctx, n, 16, func(ctx context.Context, i int) error {
		o, err := nodes.Create(ctx, api.Object{"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": nodeName(i), "labels": map[string]any{"kubernetes.io/hostname": nodeName(i)}}})
		if err != nil {
			return fmt.Errorf("creating node: %w", err)
		}
		res := map[string]any{"cpu": "32", "memory": "64Gi", "pods": "110"}
		o["status"] = map[string]any{"capacity": res, "allocatable": res,
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		if _, err := nodes.Update(ctx, o, "status"); err != nil {
			return fmt.Errorf("node status: %w", err)
		}
		return nil
	})
}

// createPods makes n identical pending pods of one owner and returns a resourceVersion
// from after the last of them.
func createPods(ctx context.Context, cli *client.Client, n int) (string, error) {
	pods := cli.Resource("", "v1", "pods").Namespace("default")
	err := parallel(ctx, n, 32, func(ctx context.Context, i int) error {
		_, err := pods.Create(ctx, api.Object{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": fmt.Sprintf("pod-%05d", i), "labels": map[string]any{"app": "bench"},
				// One owner, as for the pods of one ReplicaSet, so spreading by owner is scored too.
				"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "bench",
					"uid": "00000000-0000-0000-0000-00000000bench", "controller": true}}},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.k8s.io/pause:3.10",
				"resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}}}}}})
		if err != nil {
			return fmt.Errorf("creating pod: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	l, err := pods.List(ctx, client.ListOptions{Limit: 1})
	if err != nil {
		return "", err
	}
	return l.Metadata.ResourceVersion, nil
}

// parallel runs f(0..n-1) on workers goroutines and returns the first error.
func parallel(ctx context.Context, n, workers int, f func(context.Context, int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error { return f(ctx, i) })
	}
	return g.Wait()
}
