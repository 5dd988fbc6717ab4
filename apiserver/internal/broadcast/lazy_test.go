package broadcast_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
)

// TestDecodeOnFirstUse: events nobody watches are never decoded, and an
// event two watchers read is decoded once, with its before and after states
// and the resourceVersions the hub gives them.
func TestDecodeOnFirstUse(t *testing.T) {
	decodes.Store(0)
	h, store := startHub(t, broadcast.Config{})
	ctx := context.Background()
	unwatched, err := store.Create(ctx, "/h/quiet", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	waitRevision(t, h, unwatched)
	if n := decodes.Load(); n != 0 {
		t.Errorf("%d decodes for an event nobody watches, want 0", n)
	}

	subs := []*broadcast.Sub{h.Subscribe(ctx, unwatched), h.Subscribe(ctx, unwatched)}
	rev, err := store.Update(ctx, "/h/quiet", []byte("b"), unwatched)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, s := range subs {
		wg.Go(func() {
			defer s.Stop()
			select {
			case ev := <-s.C():
				obj, prev, err := ev.Objects()
				if err != nil || obj == nil || prev == nil {
					t.Errorf("objects %v %v %v", obj, prev, err)
					return
				}
				if got, want := string(obj.JSON), fmt.Sprintf("%d:b", rev); got != want {
					t.Errorf("object %q, want %q", got, want)
				}
				if got, want := string(prev.JSON), fmt.Sprintf("%d:a", unwatched); got != want {
					t.Errorf("previous object %q, want %q", got, want)
				}
			case <-time.After(10 * time.Second):
				t.Error("no event")
			}
		})
	}
	wg.Wait()
	if n := decodes.Load(); n != 2 {
		t.Errorf("%d decodes for one update read by two watchers, want 2 (before and after, once)", n)
	}
}
