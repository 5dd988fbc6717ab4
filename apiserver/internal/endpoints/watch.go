package endpoints

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/broadcast"
	"github.com/capstan-io/capstan/storage"
)

// watchParams are a watch's query parameters, parsed.
type watchParams struct {
	filter     *filter
	from       int64 // stream events after this revision
	initial    bool  // first send the current state as ADDED events
	initialEnd bool  // then a bookmark marking the end of the initial events
	bookmarks  bool
	timeout    time.Duration
	out        output
}

func parseWatchParams(r *http.Request, req *request) (*watchParams, error) {
	q := r.URL.Query()
	p := &watchParams{}
	var err error
	if p.out, err = negotiate(r); err != nil {
		return nil, err
	}
	if p.filter, err = parseFilter(q, req); err != nil {
		return nil, err
	}
	p.bookmarks = q.Get("allowWatchBookmarks") == "true"
	rv, rvm, sie := q.Get("resourceVersion"), q.Get("resourceVersionMatch"), q.Get("sendInitialEvents")
	if rv != "" {
		if p.from, err = strconv.ParseInt(rv, 10, 64); err != nil || p.from < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", rv))
		}
	}
	switch sie {
	case "true":
		if rvm != "NotOlderThan" {
			return nil, apierrors.NewInvalid("ListOptions", "meta.k8s.io", "", []apierrors.FieldError{{Field: "resourceVersionMatch", Reason: "FieldValueForbidden",
				Message: "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"}})
		}
		p.initial, p.initialEnd = true, p.bookmarks
	case "false":
	case "":
		p.initial = rv == "" || rv == "0"
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid sendInitialEvents %q", sie))
	}
	if rvm != "" && sie == "" {
		return nil, apierrors.NewBadRequest("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	}
	// Like Kubernetes, spread watch lifetimes so clients do not reconnect in step.
	p.timeout = time.Duration(1800+rand.IntN(1800)) * time.Second
	if s := q.Get("timeoutSeconds"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid timeoutSeconds %q", s))
		}
		if n > 0 {
			p.timeout = time.Duration(n) * time.Second
		}
	}
	return p, nil
}

func (h *Handler) watch(w http.ResponseWriter, r *http.Request, req *request) (any, error) {
	p, err := parseWatchParams(r, req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), p.timeout)
	defer cancel()
	var initial []storage.KeyValue
	switch {
	case p.initial:
		res, err := h.collect(r, req, &listParams{filter: p.filter})
		if err != nil {
			return nil, err
		}
		initial, p.from = res.items, res.rev
	case p.from == 0:
		res, err := h.cfg.Store.List(ctx, req.prefix(), storage.ListOptions{Limit: 1})
		if err != nil {
			return nil, err
		}
		p.from = res.Revision
	}
	hub := h.cfg.Hubs.Hub(req.res)
	if !hub.Covers(p.from) {
		// Older than the window: fail before streaming if etcd no longer has that history.
		if _, err := h.cfg.Store.List(ctx, req.prefix(), storage.ListOptions{Revision: p.from, Limit: 1}); errors.Is(err, storage.ErrCompacted) {
			return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", p.from))
		} else if err != nil && !errors.Is(err, storage.ErrFutureRev) {
			return nil, err
		}
	}
	sub := hub.Subscribe(ctx, p.from)
	defer sub.Stop()
	if h.cfg.WatchOpened != nil {
		h.cfg.WatchOpened(req.res)
		defer h.cfg.WatchClosed(req.res)
	}

	fw := &frameWriter{w: w, rc: http.NewResponseController(w), req: req, out: p.out, now: h.cfg.Now}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, kv := range initial {
		b, err := WithResourceVersion(kv.Value, kv.ModRevision)
		if err != nil {
			h.cfg.Log.Error("skipping undecodable object", "key", kv.Key, "err", err)
			continue
		}
		fw.write(api.Added, b)
	}
	last := p.from
	if p.initialEnd {
		fw.bookmark(last, true)
	}
	if err := fw.flush(); err != nil {
		return streamed{}, nil
	}
	ticker := time.NewTicker(h.cfg.BookmarkEvery)
	defer ticker.Stop()
	progress := last // newest revision known to be complete for this watcher
	for {
		select {
		case <-ctx.Done():
			return streamed{}, nil
		case <-ticker.C:
			if p.bookmarks && !p.out.table && progress > 0 {
				fw.bookmark(progress, false)
				if fw.flush() != nil {
					return streamed{}, nil
				}
			}
		case ev, ok := <-sub.C():
			if !ok {
				if errors.Is(sub.Err(), storage.ErrCompacted) {
					fw.status(apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", p.from)))
				}
				fw.flush()
				return streamed{}, nil
			}
			if ev.Rev > progress {
				progress = ev.Rev
			}
			if ev.Type != storage.EventProgress {
				if typ, obj := classify(ev, req, p.filter); typ != "" {
					fw.write(typ, obj.JSON)
				}
			}
			if len(sub.C()) == 0 {
				if fw.flush() != nil {
					return streamed{}, nil
				}
			}
		}
	}
}

// classify decides what a watcher with these selectors sees of ev: an object
// that stops matching arrives as DELETED, one that starts matching as ADDED.
func classify(ev *broadcast.Event, req *request, f *filter) (string, *broadcast.Object) {
	match := func(o *broadcast.Object) bool {
		if o == nil || (req.res.Namespaced && req.Namespace != "" && o.Namespace != req.Namespace) {
			return false
		}
		return f.empty() || f.matchBroadcast(o)
	}
	obj, prev, err := ev.Objects()
	if err != nil {
		return "", nil // undecodable: the hub logged it
	}
	if ev.Type == storage.EventDelete {
		if match(obj) {
			return api.Deleted, obj
		}
		return "", nil
	}
	now, before := match(obj), match(prev)
	switch {
	case now && before:
		return api.Modified, obj
	case now:
		return api.Added, obj
	case before:
		return api.Deleted, obj
	}
	return "", nil
}
