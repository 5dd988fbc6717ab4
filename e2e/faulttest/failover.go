package faulttest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Failover is the set-up of ServerFailover.
type Failover struct {
	// Writer and Watcher talk to the replica Stop stops first, and fail
	// over to the other, whose URL is Other.
	Writer, Watcher *client.Client
	Other           string
	// Stop stops the first replica; it returns when the replica is gone.
	Stop func()
	// Total writes, the first Stop of them before Stop is called.
	Total, StopAt int
}

// ServerFailover: one of two hub replicas stopped during a stream of writes
// and a watch. The writer and the watcher fail over to the other replica; the
// watcher resumes from its last resourceVersion and sees every acknowledged
// write exactly once, in resourceVersion order, and no acknowledged write is
// lost. It logs the time to fail over.
func ServerFailover(t *testing.T, f Failover) {
	ctx := t.Context()
	prefix := fmt.Sprintf("failover-%d-", time.Now().UnixNano()%1e6)
	writer := f.Writer.Resource("", "v1", "configmaps").Namespace("default")
	watcher := f.Watcher.Resource("", "v1", "configmaps").Namespace("default")
	l, err := watcher.List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The watcher: rewatches from the last resourceVersion it saw whenever
	// its stream ends, as a reflector does.
	type seen struct {
		rv     int64
		server string
	}
	var (
		mu       sync.Mutex
		events   = map[string][]seen{} // name → ADDED events
		rewatch  int
		firstOnB time.Time
	)
	lastRV := l.Metadata.ResourceVersion
	wctx, wcancel := context.WithCancel(ctx)
	wdone := make(chan error, 1)
	go func() {
		prev, _ := strconv.ParseInt(lastRV, 10, 64)
		for wctx.Err() == nil {
			w, err := watcher.Watch(wctx, client.ListOptions{ResourceVersion: lastRV, AllowWatchBookmarks: true})
			if err != nil {
				if apierrors.Code(err) == http.StatusGone {
					wdone <- fmt.Errorf("watch from %s expired: %w", lastRV, err)
					return
				}
				time.Sleep(50 * time.Millisecond)
				continue
			}
			server := f.Watcher.Server()
			mu.Lock()
			rewatch++
			mu.Unlock()
			for ev := range w.Events() {
				rvs := api.NestedString(ev.Object, "metadata", "resourceVersion")
				rv, _ := strconv.ParseInt(rvs, 10, 64)
				if ev.Type == "ERROR" {
					continue
				}
				if ev.Type != "BOOKMARK" {
					if rv <= prev {
						w.Stop()
						wdone <- fmt.Errorf("event %s %s at rv %d after rv %d: out of order or repeated", ev.Type, api.NestedString(ev.Object, "metadata", "name"), rv, prev)
						return
					}
					prev = rv
				}
				lastRV = rvs
				if ev.Type == "ADDED" {
					mu.Lock()
					name := api.NestedString(ev.Object, "metadata", "name")
					events[name] = append(events[name], seen{rv, server})
					if server == f.Other && firstOnB.IsZero() {
						firstOnB = time.Now()
					}
					mu.Unlock()
				}
			}
			w.Stop()
		}
		wdone <- nil
	}()

	// The writer: creates in sequence; a create whose answer was lost is
	// resent, and a 409 then means the first attempt was stored.
	acked := map[string]int64{}
	var stopped time.Time
	var firstAfter time.Duration
	failed := 0
	for i := range f.Total {
		if i == f.StopAt {
			begun := time.Now()
			f.Stop()
			stopped = time.Now()
			t.Logf("the first replica took %v to stop", stopped.Sub(begun).Round(time.Millisecond))
		}
		name := fmt.Sprintf("%s%03d", prefix, i)
		deadline := time.Now().Add(30 * time.Second)
		for {
			o, err := writer.Create(ctx, ConfigMap(name))
			if err == nil {
				rv, _ := strconv.ParseInt(api.NestedString(o, "metadata", "resourceVersion"), 10, 64)
				acked[name] = rv
				break
			}
			if apierrors.Code(err) == http.StatusConflict {
				o, gerr := writer.Get(ctx, name)
				if gerr != nil {
					t.Fatalf("reading %s after a 409: %v", name, gerr)
				}
				rv, _ := strconv.ParseInt(api.NestedString(o, "metadata", "resourceVersion"), 10, 64)
				acked[name] = rv
				break
			}
			failed++
			if time.Now().After(deadline) {
				t.Fatalf("create %s kept failing: %v", name, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if i == f.StopAt {
			firstAfter = time.Since(stopped)
		}
	}

	// Wait for the watcher to have seen every write, then check.
	agenttest.Eventually(t, 30*time.Second, "the watcher to see every acknowledged write", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for name := range acked {
			if len(events[name]) == 0 {
				return false
			}
		}
		return true
	})
	wcancel()
	if err := <-wdone; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	missed, dup := 0, 0
	for name, rv := range acked {
		ev := events[name]
		switch {
		case len(ev) == 0:
			missed++
		case len(ev) > 1:
			dup++
			t.Errorf("%s seen %d times", name, len(ev))
		case ev[0].rv != rv:
			t.Errorf("%s seen at rv %d, created at rv %d", name, ev[0].rv, rv)
		}
	}
	have := Names(t, writer)
	lost := 0
	for name := range acked {
		if !have[name] {
			lost++
		}
	}
	if missed > 0 || lost > 0 || dup > 0 {
		t.Errorf("events missed %d, duplicated %d, writes lost %d", missed, dup, lost)
	}
	if firstOnB.IsZero() {
		t.Errorf("the watcher never received an event from the other replica")
	}
	t.Logf("replica stopped after %d of %d writes: first write acknowledged by the other replica %v after it was gone (%d failed attempts); first watch event from it %v after; watches opened %d; events missed %d, duplicated %d; writes lost %d",
		f.StopAt, f.Total, firstAfter.Round(time.Millisecond), failed, firstOnB.Sub(stopped).Round(time.Millisecond), rewatch, missed, dup, lost)
}
