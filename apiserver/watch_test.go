package apiserver_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

// next waits for one event.
func next(t *testing.T, w *client.Watch) client.Event {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		if !ok {
			t.Fatalf("watch ended: %v", w.Err())
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
	}
	return client.Event{}
}

func expect(t *testing.T, w *client.Watch, typ, name string) client.Event {
	t.Helper()
	ev := next(t, w)
	if ev.Type != typ || ev.Object.Name() != name {
		t.Fatalf("got %s %s, want %s %s", ev.Type, ev.Object.Name(), typ, name)
	}
	return ev
}

// TestWatchExactlyOnceInOrder runs concurrent writers and watchers: every watcher
// must see every write exactly once in resourceVersion order, including one that
// disconnects and resumes from its last resourceVersion.
func TestWatchExactlyOnceInOrder(t *testing.T) {
	_, cms := setup(t, "w")
	ctx := context.Background()
	l, err := cms.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := l.Metadata.ResourceVersion
	const writers, perWriter, watchers = 4, 40, 5
	ws := make([]*client.Watch, watchers)
	for i := range ws {
		if ws[i], err = cms.Watch(ctx, client.ListOptions{ResourceVersion: start}); err != nil {
			t.Fatal(err)
		}
		defer ws[i].Stop()
	}

	var mu sync.Mutex
	written := map[string]bool{} // resourceVersions acknowledged by the server
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				name := fmt.Sprintf("w%d-%d", w, i/3)
				var o api.Object
				var err error
				switch i % 3 {
				case 0:
					o, err = cms.Create(ctx, configMap(name, map[string]any{"v": "0"}))
				case 1:
					o, err = cms.Patch(ctx, name, "", "application/merge-patch+json", []byte(`{"data":{"v":"1"}}`))
				case 2:
					o, err = cms.Delete(ctx, name, nil)
				}
				if err != nil {
					t.Errorf("write %s: %v", name, err)
					return
				}
				mu.Lock()
				written[o.ResourceVersion()] = true
				mu.Unlock()
			}
		}()
	}

	collect := func(w *client.Watch, want int, last int64) []int64 {
		var revs []int64
		for len(revs) < want {
			ev := next(t, w)
			rv, _ := strconv.ParseInt(ev.Object.ResourceVersion(), 10, 64)
			if rv <= last {
				t.Fatalf("resourceVersion went from %d to %d", last, rv)
			}
			last = rv
			revs = append(revs, rv)
		}
		return revs
	}
	total := writers * perWriter
	results := make([][]int64, watchers)
	var cwg sync.WaitGroup
	for i := 1; i < watchers; i++ {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			results[i] = collect(ws[i], total, 0)
		}()
	}
	// Watcher 0 reads half, disconnects, and resumes from its last resourceVersion.
	firstHalf := collect(ws[0], total/2, 0)
	ws[0].Stop()
	resumed, err := cms.Watch(ctx, client.ListOptions{ResourceVersion: strconv.FormatInt(firstHalf[len(firstHalf)-1], 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Stop()
	results[0] = append(firstHalf, collect(resumed, total-len(firstHalf), firstHalf[len(firstHalf)-1])...)
	wg.Wait()
	cwg.Wait()
	for i, revs := range results {
		seen := map[string]bool{}
		for _, rv := range revs {
			k := strconv.FormatInt(rv, 10)
			if seen[k] || !written[k] {
				t.Fatalf("watcher %d: event at rv %s duplicated or not acknowledged", i, k)
			}
			seen[k] = true
		}
		if len(seen) != len(written) {
			t.Fatalf("watcher %d saw %d events, %d writes were acknowledged", i, len(seen), len(written))
		}
	}
}

func TestWatchSelectorsTransitions(t *testing.T) {
	_, cms := setup(t, "ws")
	ctx := context.Background()
	w, err := cms.Watch(ctx, client.ListOptions{LabelSelector: "app=a"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	o := configMap("x", nil)
	o.Meta()["labels"] = map[string]any{"app": "a"}
	cms.Create(ctx, o)
	expect(t, w, api.Added, "x")
	cms.Patch(ctx, "x", "", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"app":"b"}}}`))
	expect(t, w, api.Deleted, "x")
	cms.Patch(ctx, "x", "", "application/merge-patch+json", []byte(`{"data":{"k":"v"}}`)) // not matching: unseen
	cms.Patch(ctx, "x", "", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"app":"a"}}}`))
	expect(t, w, api.Added, "x")
	cms.Patch(ctx, "x", "", "application/merge-patch+json", []byte(`{"data":{"k":"w"}}`))
	expect(t, w, api.Modified, "x")
	cms.Delete(ctx, "x", nil)
	expect(t, w, api.Deleted, "x")
}

func TestWatchInitialEventsAndBookmarks(t *testing.T) {
	s := apiservertest.Start(t, func(c *apiserver.Config) { c.BookmarkInterval = 200 * time.Millisecond })
	ctx := context.Background()
	s.Client.Resource("", "v1", "namespaces").Create(ctx, namespace("b"))
	cms := s.Client.Resource("", "v1", "configmaps").Namespace("b")
	cms.Create(ctx, configMap("one", nil))
	cms.Create(ctx, configMap("two", nil))
	yes := true
	w, err := cms.Watch(ctx, client.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	expect(t, w, api.Added, "one")
	expect(t, w, api.Added, "two")
	ev := next(t, w)
	if ev.Type != api.Bookmark || ev.Object.StringMap("annotations")[api.InitialEventsEndAnnotation] != "true" || ev.Object.Kind() != "ConfigMap" {
		t.Fatalf("want the initial-events-end bookmark, got %s %v", ev.Type, ev.Object)
	}
	listRV := ev.Object.ResourceVersion()
	created, _ := cms.Create(ctx, configMap("three", nil))
	expect(t, w, api.Added, "three")
	ev = next(t, w) // a periodic bookmark, at least as new as the last event
	if ev.Type != api.Bookmark {
		t.Fatalf("want a periodic bookmark, got %s", ev.Type)
	}
	bm, _ := strconv.ParseInt(ev.Object.ResourceVersion(), 10, 64)
	cr, _ := strconv.ParseInt(created.ResourceVersion(), 10, 64)
	lr, _ := strconv.ParseInt(listRV, 10, 64)
	if bm < cr || lr >= cr {
		t.Fatalf("bookmark rv %d, last event rv %d, list rv %d", bm, cr, lr)
	}
	if _, err := cms.Watch(ctx, client.ListOptions{SendInitialEvents: &yes}); apierrors.Code(err) != 422 {
		t.Fatalf("sendInitialEvents without NotOlderThan: %v, want 422", err)
	}
}

func TestWatchTooOldAndTimeout(t *testing.T) {
	s, cms := setup(t, "wo")
	ctx := context.Background()
	first, _ := cms.Create(ctx, configMap("a", nil))
	for i := range 3 {
		cms.Patch(ctx, "a", "", "application/merge-patch+json", []byte(fmt.Sprintf(`{"data":{"i":"%d"}}`, i)))
	}
	// Push the hub's window past the first revision so the old watch must go to etcd.
	compactNow(t, s.Etcd.Endpoint)
	old, _ := strconv.ParseInt(first.ResourceVersion(), 10, 64)
	_, err := cms.Watch(ctx, client.ListOptions{ResourceVersion: strconv.FormatInt(old-5, 10)})
	if !apierrors.IsGone(err) {
		t.Fatalf("watch from compacted rv: %v, want 410", err)
	}
	w, err := cms.Watch(ctx, client.ListOptions{TimeoutSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	expect(t, w, api.Added, "a")
	select {
	case _, ok := <-w.Events():
		if ok {
			t.Fatal("unexpected event")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("timeoutSeconds=1 watch still open after 10s")
	}
}

func TestWatchQueryForms(t *testing.T) {
	s, cms := setup(t, "q")
	ctx := context.Background()
	cms.Create(ctx, configMap("a", nil))
	for _, q := range []string{"watch", "watch=1", "watch=true"} {
		t.Run(q, func(t *testing.T) {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(rctx, "GET", s.URL()+"/api/v1/namespaces/q/configmaps?"+q+"&resourceVersion=0", nil)
			req.Header.Set("Authorization", "Bearer "+s.Token)
			resp, err := s.Client.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err != nil || resp.Header.Get("Content-Type") != "application/json" || line[:17] != `{"type":"ADDED","` {
				t.Fatalf("first frame %q (%v)", line, err)
			}
		})
	}
}
