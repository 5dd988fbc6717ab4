package storagetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/capstan-io/capstan/storage"
)

// RunConformance checks s against the storage contract. s must be empty under /conformance/.
func RunConformance(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	const p = "/conformance/"

	t.Run("create get conflict delete", func(t *testing.T) {
		rev, err := s.Create(ctx, p+"a", []byte("1"))
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if _, err := s.Create(ctx, p+"a", []byte("x")); !errors.Is(err, storage.ErrExists) {
			t.Fatalf("second create: got %v, want ErrExists", err)
		}
		got, err := s.Get(ctx, p+"a")
		if err != nil || string(got.Value) != "1" || got.ModRevision != rev {
			t.Fatalf("get: %+v %v", got, err)
		}
		rev2, err := s.Update(ctx, p+"a", []byte("2"), rev)
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if _, err := s.Update(ctx, p+"a", []byte("3"), rev); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("stale update: got %v, want ErrConflict", err)
		}
		if got, _ := s.Get(ctx, p+"a"); string(got.Value) != "2" {
			t.Fatalf("stale update changed the value to %q", got.Value)
		}
		if _, err := s.Delete(ctx, p+"a", rev); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("stale delete: got %v, want ErrConflict", err)
		}
		if _, err := s.Delete(ctx, p+"a", rev2); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := s.Get(ctx, p+"a"); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("get after delete: got %v, want ErrNotFound", err)
		}
		if _, err := s.Update(ctx, p+"a", []byte("x"), rev2); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("update of missing key: got %v, want ErrNotFound", err)
		}
	})

	t.Run("list pages at one revision", func(t *testing.T) {
		const lp = p + "list/"
		for i := range 5 {
			if _, err := s.Create(ctx, fmt.Sprintf("%s%02d", lp, i), []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
		first, err := s.List(ctx, lp, storage.ListOptions{Limit: 2})
		if err != nil || len(first.Items) != 2 || !first.More || first.Remaining != 3 {
			t.Fatalf("first page: %+v %v", first, err)
		}
		// A write between pages must not show in the second page.
		if _, err := s.Create(ctx, lp+"99", []byte("late")); err != nil {
			t.Fatal(err)
		}
		next := first.Items[1].Key + "\x00"
		rest, err := s.List(ctx, lp, storage.ListOptions{Start: next, Revision: first.Revision})
		if err != nil || len(rest.Items) != 3 || rest.More {
			t.Fatalf("second page: %+v %v", rest, err)
		}
	})

	t.Run("watch from revision", func(t *testing.T) {
		const wp = p + "watch/"
		r1, _ := s.Create(ctx, wp+"x", []byte("1"))
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events, _ := s.Watch(wctx, wp, r1-1)
		r2, _ := s.Update(ctx, wp+"x", []byte("2"), r1)
		r3, _ := s.Delete(ctx, wp+"x", r2)
		want := []struct {
			typ storage.EventType
			rev int64
		}{{storage.EventPut, r1}, {storage.EventPut, r2}, {storage.EventDelete, r3}}
		for i, w := range want {
			for {
				select {
				case ev := <-events:
					if ev.Type == storage.EventProgress {
						continue
					}
					if ev.Type != w.typ || ev.Revision != w.rev {
						t.Fatalf("event %d: got type %v rev %d, want %v %d", i, ev.Type, ev.Revision, w.typ, w.rev)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("event %d: timed out", i)
				}
				break
			}
		}
	})
}
