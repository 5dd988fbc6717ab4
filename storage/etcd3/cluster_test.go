package etcd3_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/capstan-io/capstan/storage"
	"github.com/capstan-io/capstan/storage/etcd3"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// TestQuorum: a 3-member cluster keeps taking writes with one member down,
// fails fast without quorum, and resumes with nothing lost when quorum returns.
func TestQuorum(t *testing.T) {
	c := storagetest.RunCluster(t, 3)
	cli, err := etcd3.NewClient(c.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	s := etcd3.New(cli, etcd3.Config{RequestTimeout: time.Second})
	ctx := context.Background()
	acked := map[string]bool{}
	write := func(i int) error {
		k := fmt.Sprintf("/q/%d", i)
		_, err := s.Create(ctx, k, []byte("v"))
		if err == nil {
			acked[k] = true
		}
		return err
	}
	for i := range 5 {
		if err := write(i); err != nil {
			t.Fatal(err)
		}
	}
	c.Stop(0)
	for i := 5; i < 10; i++ {
		if err := write(i); err != nil {
			t.Fatalf("write with one member down: %v", err)
		}
	}
	c.Stop(1)
	start := time.Now()
	if err := write(10); !errors.Is(err, storage.ErrUnavailable) && !errors.Is(err, storage.ErrTimeout) {
		t.Fatalf("write without quorum: %v, want ErrUnavailable or ErrTimeout", err)
	}
	// Once the member notices it has no leader, writes are refused outright.
	deadline := time.Now().Add(10 * time.Second)
	refused := 100
	for err := write(refused); !errors.Is(err, storage.ErrUnavailable); err = write(refused) {
		if time.Now().After(deadline) {
			t.Fatalf("write without quorum: %v, want ErrUnavailable (no leader)", err)
		}
		refused++ // a timed-out write may still be applied later: only a refused one is checked
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("write without quorum took %v", d)
	}
	c.Restart(1)
	deadline = time.Now().Add(30 * time.Second)
	for write(11) != nil {
		if time.Now().After(deadline) {
			t.Fatal("writes did not resume after quorum returned")
		}
	}
	res, err := s.List(ctx, "/q/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, kv := range res.Items {
		got[kv.Key] = true
	}
	for k := range acked {
		if !got[k] {
			t.Errorf("acknowledged write %s lost", k)
		}
	}
	if got[fmt.Sprintf("/q/%d", refused)] {
		t.Error("a write refused for want of a leader was applied later")
	}
}
