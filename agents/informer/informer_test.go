package informer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/informer"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

// proxy sits between the informer and the hub so a test can cut connections
// and answer the next watch with 410 Gone.
type proxy struct {
	*httptest.Server
	lists, watches atomic.Int32
	gone           atomic.Bool // answer the next watch with 410
	goneInStream   atomic.Bool // answer the next watch with 200 and an ERROR frame carrying 410
}

const expired = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version"}`

func newProxy(t *testing.T, hub *apiservertest.Server) *proxy {
	t.Helper()
	u, _ := url.Parse(hub.URL())
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = hub.Client.HTTPClient().Transport
	rp.FlushInterval = -1
	p := &proxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" {
			p.watches.Add(1)
			if p.gone.CompareAndSwap(true, false) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusGone)
				w.Write([]byte(expired))
				return
			}
			if p.goneInStream.CompareAndSwap(true, false) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"type":"ERROR","object":` + expired + "}\n"))
				return
			}
		} else if r.Method == http.MethodGet {
			p.lists.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// newProxiedClient returns a proxy to hub and a client that goes through it.
func newProxiedClient(t *testing.T, hub *apiservertest.Server) (*proxy, *client.Client) {
	t.Helper()
	p := newProxy(t, hub)
	cli, err := client.New(client.Config{Server: p.URL, Token: hub.Token, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p, cli
}

// runSynced runs inf until the test ends, and waits until it has synced.
func runSynced(t *testing.T, inf *informer.Informer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-errc:
		case <-time.After(5 * time.Second):
			t.Error("informer did not stop")
		}
	})
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if !informer.WaitForSync(syncCtx, inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	agenttest.Eventually(t, 10*time.Second, what, cond)
}

func configMap(name string) api.Object {
	return api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]any{"k": "v"}}
}

type recorder struct {
	mu                    sync.Mutex
	adds, updates, delete map[string]int
}

func (r *recorder) count(m map[string]int, o api.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m[o.Name()]++
}

func (r *recorder) deletes(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.delete[name]
}

func TestInformerListWatchResumeRelist(t *testing.T) {
	hub := apiservertest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := hub.Client.Resource("", "v1", "configmaps").Namespace("default")
	for _, n := range []string{"a", "b", "c"} {
		if _, err := cms.Create(ctx, configMap(n)); err != nil {
			t.Fatal(err)
		}
	}
	p, cli := newProxiedClient(t, hub)
	inf := informer.New(informer.Config{Client: cli, Version: "v1", Resource: "configmaps", Namespace: "default", PageSize: 2, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	rec := &recorder{adds: map[string]int{}, updates: map[string]int{}, delete: map[string]int{}}
	inf.AddHandler(informer.HandlerFuncs{
		AddFunc:    func(o api.Object) { rec.count(rec.adds, o) },
		UpdateFunc: func(_, o api.Object) { rec.count(rec.updates, o) },
		DeleteFunc: func(o api.Object) { rec.count(rec.delete, o) },
	})
	runSynced(t, inf)
	if n := inf.Store().Len(); n != 3 {
		t.Fatalf("synced with %d objects, want 3 (paged list)", n)
	}
	has := func(name string) func() bool {
		return func() bool { _, ok := inf.Store().Get("default/" + name); return ok }
	}

	// A watched create arrives.
	if _, err := cms.Create(ctx, configMap("d")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "d in cache", has("d"))

	// A cut connection resumes from the last RV without listing again.
	lists := p.lists.Load()
	p.CloseClientConnections()
	if _, err := cms.Create(ctx, configMap("e")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "e in cache after disconnect", has("e"))
	if got := p.lists.Load(); got != lists {
		t.Fatalf("disconnect caused %d lists, want a resumed watch", got-lists)
	}

	// 410 on the resumed watch makes it list again, and the re-list delivers
	// the delete it missed.
	p.gone.Store(true)
	p.CloseClientConnections()
	if _, err := cms.Delete(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, configMap("f")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a gone and f present after 410", func() bool { return has("f")() && !has("a")() })
	if p.lists.Load() == lists {
		t.Fatal("410 did not cause a re-list")
	}
	if rec.deletes("a") != 1 {
		t.Fatalf("delete handler for a called %d times, want 1", rec.deletes("a"))
	}

	// The same when the 410 comes as an ERROR frame inside a watch stream.
	lists = p.lists.Load()
	p.goneInStream.Store(true)
	p.CloseClientConnections()
	if _, err := cms.Delete(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b gone after an in-stream 410", func() bool { return !has("b")() })
	if p.lists.Load() == lists {
		t.Fatal("in-stream 410 did not cause a re-list")
	}
	if n := len(inf.Store().ByIndex(informer.IndexNamespace, "default")); n != 4 {
		t.Fatalf("namespace index has %d, want 4", n)
	}
}

func TestInformerResync(t *testing.T) {
	hub := apiservertest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := hub.Client.Resource("", "v1", "configmaps").Namespace("default").Create(ctx, configMap("a")); err != nil {
		t.Fatal(err)
	}
	inf := informer.New(informer.Config{Client: hub.Client, Version: "v1", Resource: "configmaps", ResyncPeriod: 50 * time.Millisecond})
	var resyncs atomic.Int32
	inf.AddHandler(informer.HandlerFuncs{UpdateFunc: func(o, n api.Object) {
		if o.ResourceVersion() == n.ResourceVersion() {
			resyncs.Add(1)
		}
	}})
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	eventually(t, "two resyncs", func() bool { return resyncs.Load() >= 2 })
	cancel()
	<-done
}

// TestInformerBackoffResetsAfterProgress: a watch that delivered events
// before its connection was cut is resumed after the shortest backoff, however
// many cuts came before, so repeated failovers never wait out MaxBackoff.
func TestInformerBackoffResetsAfterProgress(t *testing.T) {
	hub := apiservertest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := hub.Client.Resource("", "v1", "configmaps").Namespace("default")
	p, cli := newProxiedClient(t, hub)
	inf := informer.New(informer.Config{Client: cli, Version: "v1", Resource: "configmaps", Namespace: "default", MinBackoff: 10 * time.Millisecond, MaxBackoff: 5 * time.Second})
	runSynced(t, inf)
	// Twelve cuts, each after an event arrived. Without the reset the
	// ceiling would double on each (10 ms … 5 s) and the last four rounds
	// would wait about 9 s together; with it each resumes within 10 ms.
	var late time.Duration
	for i := range 12 {
		name := fmt.Sprintf("cut-%d", i)
		start := time.Now()
		if _, err := cms.Create(ctx, configMap(name)); err != nil {
			t.Fatal(err)
		}
		eventually(t, name+" in cache", func() bool { _, ok := inf.Store().Get("default/" + name); return ok })
		if i >= 8 {
			late += time.Since(start)
		}
		p.CloseClientConnections()
	}
	if late > 4*time.Second {
		t.Errorf("the last four rounds took %v: the backoff kept growing across watches that worked", late)
	}
	if w := p.watches.Load(); w < 12 {
		t.Errorf("%d watches for 12 cuts", w)
	}
}
