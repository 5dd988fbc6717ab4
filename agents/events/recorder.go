package events

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Event types.
const (
	Normal  = "Normal"
	Warning = "Warning"
)

// Config says who reports and how events are aggregated.
type Config struct {
	// Client reaches the hub.
	Client *client.Client
	// Component is source.component and reportingComponent, e.g. "default-scheduler".
	Component string
	// Instance is source.host and reportingInstance (usually the host name).
	Instance string
	// Window is how long a repeated event updates the existing one; 0 means 10m.
	Window time.Duration
	// Buffer is how many events may wait to be written; 0 means 1000.
	Buffer int
	// Logger receives write failures; nil discards.
	Logger *slog.Logger
}

// Recorder writes Events.
type Recorder struct {
	cfg     Config
	rc      *client.ResourceClient
	log     *slog.Logger
	pending chan pending // bounded; Run drains it
	dropped atomic.Int64
	seen    map[string]*seen // aggregation cache; owned by Run's goroutine
}

type pending struct {
	obj                  api.Object
	typ, reason, message string
	at                   time.Time
}

// seen is an Event already written for an aggregation key.
type seen struct {
	namespace, name string
	count           int64
	first           time.Time
}

// New returns a Recorder; call Run to write events.
func New(cfg Config) *Recorder {
	if cfg.Window == 0 {
		cfg.Window = 10 * time.Minute
	}
	if cfg.Buffer == 0 {
		cfg.Buffer = 1000
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recorder{cfg: cfg, rc: cfg.Client.Resource("", "v1", "events"), log: log, pending: make(chan pending, cfg.Buffer), seen: map[string]*seen{}}
}

// Event records that reason happened to obj; typ is Normal or Warning. It never blocks.
func (r *Recorder) Event(obj api.Object, typ, reason, message string) {
	select {
	case r.pending <- pending{obj: obj, typ: typ, reason: reason, message: message, at: time.Now()}:
	default:
		r.dropped.Add(1)
	}
}

// Eventf is Event with a formatted message.
func (r *Recorder) Eventf(obj api.Object, typ, reason, format string, args ...any) {
	r.Event(obj, typ, reason, fmt.Sprintf(format, args...))
}

// Dropped is how many events were dropped because the buffer was full.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Run writes events until ctx ends; what is still buffered then is dropped.
func (r *Recorder) Run(ctx context.Context) error {
	defer func() {
		if n := r.dropped.Load(); n > 0 {
			r.log.Info("events dropped because the buffer was full", "dropped", n)
		}
	}()
	sweep := time.NewTicker(r.cfg.Window)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case p := <-r.pending:
			if err := r.write(ctx, p); err != nil && ctx.Err() == nil {
				r.log.Warn("writing event", "reason", p.reason, "object", p.obj.Name(), "err", err)
			}
		case now := <-sweep.C:
			for k, s := range r.seen {
				if now.Sub(s.first) > r.cfg.Window {
					delete(r.seen, k)
				}
			}
		}
	}
}

// write creates an Event, or bumps the one already written for the same key.
func (r *Recorder) write(ctx context.Context, p pending) error {
	ns := p.obj.Namespace()
	if ns == "" {
		ns = "default"
	}
	key := aggregationKey(p)
	if s, ok := r.seen[key]; ok && p.at.Sub(s.first) <= r.cfg.Window {
		patch, _ := json.Marshal(map[string]any{"count": s.count + 1, "lastTimestamp": p.at.UTC().Format(time.RFC3339)})
		_, err := r.rc.Namespace(s.namespace).Patch(ctx, s.name, "", "application/merge-patch+json", patch)
		if err == nil {
			s.count++
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		delete(r.seen, key) // someone deleted it: start a new one
	}
	ev := newEvent(p, ns, r.cfg.Component, r.cfg.Instance)
	if _, err := r.rc.Namespace(ns).Create(ctx, ev); err != nil {
		return err
	}
	r.seen[key] = &seen{namespace: ns, name: ev.Name(), count: 1, first: p.at}
	return nil
}

func aggregationKey(p pending) string {
	return p.obj.Kind() + "\x00" + p.obj.Namespace() + "\x00" + p.obj.Name() + "\x00" + p.obj.UID() + "\x00" + p.typ + "\x00" + p.reason + "\x00" + p.message
}

// newEvent builds a core/v1 Event about p.obj.
func newEvent(p pending, ns, component, instance string) api.Object {
	ts := p.at.UTC().Format(time.RFC3339)
	involved := map[string]any{
		"kind": p.obj.Kind(), "apiVersion": p.obj.APIVersion(), "name": p.obj.Name(),
		"uid": p.obj.UID(), "resourceVersion": p.obj.ResourceVersion(),
	}
	if p.obj.Namespace() != "" {
		involved["namespace"] = p.obj.Namespace()
	}
	source := map[string]any{"component": component}
	if instance != "" {
		source["host"] = instance
	}
	return api.Object{
		"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]any{
			"name":      p.obj.Name() + "." + strconv.FormatInt(p.at.UnixNano(), 16),
			"namespace": ns,
		},
		"involvedObject":     involved,
		"reason":             p.reason,
		"message":            p.message,
		"type":               p.typ,
		"source":             source,
		"reportingComponent": component,
		"reportingInstance":  instance,
		"firstTimestamp":     ts,
		"lastTimestamp":      ts,
		"count":              1,
	}
}
