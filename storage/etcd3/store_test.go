package etcd3_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capstan-io/capstan/storage"
	"github.com/capstan-io/capstan/storage/etcd3"
	"github.com/capstan-io/capstan/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.RunConformance(t, etcd3.New(storagetest.RunEtcd(t), etcd3.Config{}))
}

func TestCompactedReadsAndWatches(t *testing.T) {
	cli := storagetest.RunEtcd(t)
	s := etcd3.New(cli, etcd3.Config{})
	ctx := context.Background()
	r1, _ := s.Create(ctx, "/c/a", []byte("1"))
	r2, _ := s.Update(ctx, "/c/a", []byte("2"), r1)
	if _, err := etcd3.NewCompactor(cli, time.Hour, nil).Once(ctx, r2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, "/c/", storage.ListOptions{Revision: r1}); !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("list at compacted revision: got %v, want ErrCompacted", err)
	}
	events, errc := s.Watch(ctx, "/c/", r1-1)
	for range events {
	}
	if err := <-errc; !errors.Is(err, storage.ErrCompacted) {
		t.Fatalf("watch from compacted revision: got %v, want ErrCompacted", err)
	}
}

func TestUnavailableFailsFast(t *testing.T) {
	e, _ := storagetest.RunEtcdMember(t)
	cli, err := e.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	s := etcd3.New(cli, etcd3.Config{RequestTimeout: 500 * time.Millisecond})
	e.Close()
	done := make(chan error, 1)
	go func() { _, err := s.Create(context.Background(), "/u/a", []byte("1")); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, storage.ErrUnavailable) && !errors.Is(err, storage.ErrTimeout) {
			t.Fatalf("got %v, want ErrUnavailable or ErrTimeout", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("create against a stopped etcd hung")
	}
}
