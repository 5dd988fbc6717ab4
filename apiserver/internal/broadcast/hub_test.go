package broadcast_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/storage"
	"github.com/capstan-io/capstan/storage/etcd3"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// decodes counts decode calls, for TestDecodeOnFirstUse.
var decodes atomic.Int64

func decode(value []byte, rev int64) (*broadcast.Object, error) {
	decodes.Add(1)
	return &broadcast.Object{JSON: append([]byte(strconv.FormatInt(rev, 10)+":"), value...)}, nil
}

func startHub(t *testing.T, cfg broadcast.Config) (*broadcast.Hub, *etcd3.Store) {
	t.Helper()
	store := etcd3.New(storagetest.RunEtcd(t), etcd3.Config{})
	cfg.Prefix, cfg.Decode = "/h/", decode
	h := broadcast.New(store, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("hub did not stop")
		}
	})
	// Wait until the hub watches, so that every write the test makes is in
	// its window (a hub that started late would begin its window after them).
	now, err := store.List(ctx, "/h/", storage.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !h.Covers(now.Revision) {
		if time.Now().After(deadline) {
			t.Fatal("hub did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return h, store
}

// TestSlowWatcherIsDropped: a watcher that does not read is dropped once its
// queue is full, and never holds up the hub: it keeps consuming etcd, and a
// watcher starting from the same revision afterwards still gets every event.
func TestSlowWatcherIsDropped(t *testing.T) {
	h, store := startHub(t, broadcast.Config{Queue: 8})
	ctx := context.Background()
	now, err := store.List(ctx, "/h/", storage.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	slow := h.Subscribe(ctx, now.Revision)
	defer slow.Stop()
	var last int64
	for i := range 50 {
		if last, err = store.Create(ctx, fmt.Sprintf("/h/%d", i), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	waitRevision(t, h, last)
	n := 0
	for range slow.C() {
		n++
	}
	if n != 8 || !errors.Is(slow.Err(), broadcast.ErrDropped) {
		t.Fatalf("slow watcher: %d events then %v; want its 8 queued events then ErrDropped", n, slow.Err())
	}
	late := h.Subscribe(ctx, now.Revision)
	defer late.Stop()
	for i := range 50 {
		select {
		case ev := <-late.C():
			if ev.Rev != now.Revision+int64(i)+1 {
				t.Fatalf("event %d at rev %d", i, ev.Rev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("resumed watcher got %d of 50 events", i)
		}
	}
}

func waitRevision(t *testing.T, h *broadcast.Hub, rev int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for h.Revision() < rev {
		if time.Now().After(deadline) {
			t.Fatalf("hub stuck at revision %d, want %d", h.Revision(), rev)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestResumeFromWindowAndBeyond: a watch from a revision inside the window is
// served from memory, one older than the window from etcd, both complete.
func TestResumeFromWindowAndBeyond(t *testing.T) {
	h, store := startHub(t, broadcast.Config{Window: 4})
	ctx := context.Background()
	var revs []int64
	for i := range 10 {
		rev, err := store.Create(ctx, fmt.Sprintf("/h/%d", i), []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	waitRevision(t, h, revs[9])
	for _, tc := range []struct {
		name     string
		from     int64
		inWindow bool
	}{
		{"inside window", revs[6], true},
		{"older than window", revs[1], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if h.Covers(tc.from) != tc.inWindow {
				t.Fatalf("Covers(%d) = %v", tc.from, !tc.inWindow)
			}
			s := h.Subscribe(ctx, tc.from)
			defer s.Stop()
			for want := tc.from + 1; want <= revs[9]; want++ {
				select {
				case ev := <-s.C():
					if ev.Rev != want {
						t.Fatalf("got rev %d, want %d", ev.Rev, want)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("no event for rev %d", want)
				}
			}
		})
	}
}
