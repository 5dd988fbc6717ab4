package etcd3

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/capstan-io/capstan/storage"
)

// Watch streams every change under prefix after rev. Progress notifications from
// etcd arrive as storage.EventProgress. The events channel is closed when ctx ends
// or etcd ends the watch (for example on compaction, reported as storage.ErrCompacted).
func (s *Store) Watch(ctx context.Context, prefix string, rev int64) (<-chan storage.Event, <-chan error) {
	events := make(chan storage.Event, 128)
	errc := make(chan error, 1)
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wch := s.cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithPrevKV(), clientv3.WithProgressNotify())
	go func() {
		defer close(events)
		defer cancel()
		for resp := range wch {
			if err := resp.Err(); err != nil {
				if resp.CompactRevision != 0 {
					err = &storage.Error{Code: storage.ErrCompacted, Key: prefix, Rev: resp.CompactRevision, Err: err}
				} else {
					err = wrap(err, prefix, rev)
				}
				errc <- err
				return
			}
			if resp.IsProgressNotify() {
				if !send(ctx, events, storage.Event{Type: storage.EventProgress, Revision: resp.Header.Revision}) {
					return
				}
				continue
			}
			for _, e := range resp.Events {
				ev := storage.Event{KV: kv(e.Kv), Revision: e.Kv.ModRevision}
				if e.PrevKv != nil {
					p := kv(e.PrevKv)
					ev.Prev = &p
				}
				if e.Type == clientv3.EventTypeDelete {
					ev.Type = storage.EventDelete
				}
				if !send(ctx, events, ev) {
					return
				}
			}
		}
		if ctx.Err() == nil {
			errc <- &storage.Error{Code: storage.ErrUnavailable, Key: prefix, Rev: rev}
		}
	}()
	return events, errc
}

func send(ctx context.Context, ch chan<- storage.Event, ev storage.Event) bool {
	select {
	case ch <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// RequestProgress asks etcd to send a progress notification on the watch streams opened with ctx.
func (s *Store) RequestProgress(ctx context.Context) error {
	return s.cli.RequestProgress(clientv3.WithRequireLeader(ctx))
}
