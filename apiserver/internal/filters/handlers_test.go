package filters

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHandlersReuseGoroutines: sequential requests are served by pooled
// goroutines, not one each, and each answer is its own request's.
func TestHandlersReuseGoroutines(t *testing.T) {
	p := NewHandlers(4)
	defer p.Close(context.Background())
	srv := httptest.NewServer(p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path)
	})))
	defer srv.Close()
	for i := range 50 {
		path := "/req/" + strings.Repeat("x", i)
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != path {
			t.Fatalf("answer %q to %q", b, path)
		}
	}
	// One, unless a request arrived before the goroutine that served the
	// previous one was back waiting; never one per request.
	if n := p.spawned.Load(); n < 1 || n > 5 {
		t.Errorf("%d goroutines started for 50 sequential requests, want 1 (at most 5)", n)
	}
}

// TestHandlersDoNotWait: a request that never ends (a watch) holds one
// goroutine; the others are served meanwhile, on goroutines of their own.
func TestHandlersDoNotWait(t *testing.T) {
	p := NewHandlers(4)
	release := make(chan struct{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(release); wg.Wait(); p.Close(context.Background()) }()
	h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/block" {
			close(started)
			<-release
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/block", nil)) })
	<-started
	done := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/quick", nil))
		done <- rec.Code
	}()
	select {
	case code := <-done:
		if code != http.StatusNoContent {
			t.Errorf("code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a request waited for a blocked one")
	}
}

// TestHandlersPanicOnCaller: a handler's panic is raised on the request's own
// goroutine with its value, and the pool goes on serving.
func TestHandlersPanicOnCaller(t *testing.T) {
	p := NewHandlers(4)
	defer p.Close(context.Background())
	boom := errors.New("boom")
	h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic(boom)
		}
		w.WriteHeader(http.StatusOK)
	}))
	func() {
		defer func() {
			if v := recover(); v != boom {
				t.Errorf("recovered %v, want %v", v, boom)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/panic", nil))
	}()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ok", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("after a panic: code %d", rec.Code)
	}
}

// TestHandlersClose: Close ends every pooled goroutine, and requests after it
// are still served.
func TestHandlersClose(t *testing.T) {
	before := runtime.NumGoroutine()
	p := NewHandlers(8)
	h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil)) })
	}
	wg.Wait()
	if p.spawned.Load() == 0 {
		t.Fatal("no pooled goroutine")
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusAccepted {
		t.Errorf("after Close: code %d", rec.Code)
	}
}

// TestHandlersCloseBounded: Close waits for a busy handler only until its
// context ends, so a handler that never returns cannot hold up a shutdown.
func TestHandlersCloseBounded(t *testing.T) {
	p := NewHandlers(4)
	release, started := make(chan struct{}), make(chan struct{})
	h := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.Close(ctx); err == nil {
		t.Error("Close returned nil while a handler was still running")
	}
	close(release)
	<-done
	if err := p.Close(context.Background()); err != nil {
		t.Errorf("Close after the handler returned: %v", err)
	}
}
