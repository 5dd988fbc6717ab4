package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Event is one decoded watch event.
type Event struct {
	Type   string
	Object api.Object
}

// Watch is an open watch stream. Events is closed when the stream ends; Err then says why.
type Watch struct {
	events chan Event
	cancel context.CancelFunc
	donec  chan struct{} // closed when the reader goroutine has exited
	err    error         // written before events is closed
}

// Events delivers the stream's events in order.
func (w *Watch) Events() <-chan Event { return w.events }

// Err reports why the stream ended (nil for a clean end); valid once Events is closed.
func (w *Watch) Err() error { return w.err }

// Stop ends the stream and waits for its reader to exit.
func (w *Watch) Stop() {
	w.cancel()
	<-w.donec
}

// Watch opens a watch. The first response is awaited, so an error status is returned here.
func (rc *ResourceClient) Watch(ctx context.Context, opts ListOptions) (*Watch, error) {
	q := opts.query()
	q.Set("watch", "1")
	ctx, cancel := context.WithCancel(ctx)
	resp, err := rc.c.send(ctx, Request{Method: http.MethodGet, Path: rc.Path("", ""), Query: q.Encode()})
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		var buf [64 << 10]byte
		n, _ := resp.Body.Read(buf[:])
		return nil, decodeStatus(resp.StatusCode, buf[:n])
	}
	w := &Watch{events: make(chan Event, 64), cancel: cancel, donec: make(chan struct{})}
	go func() {
		defer close(w.donec)
		defer close(w.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var raw api.WatchEvent
			if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
				w.err = fmt.Errorf("decoding watch frame: %w", err)
				return
			}
			o, err := api.Decode(raw.Object)
			if err != nil {
				w.err = fmt.Errorf("decoding watch object: %w", err)
				return
			}
			if raw.Type == api.Error {
				w.err = decodeStatus(int(api.Int64(o["code"])), raw.Object)
				return
			}
			select {
			case w.events <- Event{Type: raw.Type, Object: o}:
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() == nil {
			w.err = sc.Err()
		}
	}()
	return w, nil
}
