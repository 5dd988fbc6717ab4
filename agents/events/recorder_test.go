package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/events"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

func TestAggregation(t *testing.T) {
	hub := apiservertest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	cms := hub.Client.Resource("", "v1", "configmaps").Namespace("default")
	obj, err := cms.Create(ctx, api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "target"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := events.New(events.Config{Client: hub.Client, Component: "test-agent", Instance: "host-1"})
	done := make(chan struct{})
	go func() { defer close(done); rec.Run(ctx) }()
	defer func() { cancel(); <-done }()

	for range 3 {
		rec.Event(obj, events.Warning, "FailedThing", "it failed")
	}
	rec.Eventf(obj, events.Normal, "DidThing", "did %d things", 2)

	evs := hub.Client.Resource("", "v1", "events").Namespace("default")
	var list *client.List
	agenttest.Eventually(t, 10*time.Second, "two events, one with count 3", func() bool {
		list, err = evs.List(ctx, client.ListOptions{})
		return err == nil && len(list.Items) == 2 && countOf(list, "FailedThing") == 3
	})
	for _, ev := range list.Items {
		for _, tc := range []struct{ field, want string }{
			{"involvedObject.kind", "ConfigMap"},
			{"involvedObject.name", "target"},
			{"involvedObject.uid", obj.UID()},
			{"source.component", "test-agent"},
			{"source.host", "host-1"},
			{"reportingComponent", "test-agent"},
		} {
			if got := field(ev, tc.field); got != tc.want {
				t.Errorf("%s %s = %q, want %q", ev["reason"], tc.field, got, tc.want)
			}
		}
		switch ev["reason"] {
		case "FailedThing":
			if ev["type"] != "Warning" || ev["message"] != "it failed" {
				t.Errorf("FailedThing event = %v", ev)
			}
		case "DidThing":
			if ev["message"] != "did 2 things" || api.Int64(ev["count"]) != 1 {
				t.Errorf("DidThing event = %v", ev)
			}
		}
	}
}

func countOf(l *client.List, reason string) int64 {
	for _, ev := range l.Items {
		if ev["reason"] == reason {
			return api.Int64(ev["count"])
		}
	}
	return 0
}

func field(o api.Object, path string) string {
	var parts []string
	start := 0
	for i := range len(path) {
		if path[i] == '.' {
			parts = append(parts, path[start:i])
			start = i + 1
		}
	}
	return api.NestedString(o, append(parts, path[start:])...)
}

func TestDropWhenFull(t *testing.T) {
	t.Parallel()
	rec := events.New(events.Config{Client: &client.Client{}, Component: "x", Buffer: 1})
	obj := api.Object{"metadata": map[string]any{"name": "a"}}
	rec.Event(obj, events.Normal, "A", "a")
	rec.Event(obj, events.Normal, "B", "b") // buffer full, Run not started: dropped, not blocked
	if rec.Dropped() != 1 {
		t.Fatalf("Dropped = %d, want 1", rec.Dropped())
	}
}
