package etcd3

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/capstan-io/capstan/storage"
)

var _ storage.Interface = (*Store)(nil)

// Config tunes a Store.
type Config struct {
	// RequestTimeout bounds every unary etcd call, so a lost quorum fails instead of hanging.
	RequestTimeout time.Duration
	// Observe, if set, is called after every etcd call with the operation and its duration.
	Observe func(op string, d time.Duration)
}

// Store is a storage.Interface over an etcd client.
type Store struct {
	cli *clientv3.Client
	cfg Config
}

// New returns a Store using cli, which the caller keeps owning.
func New(cli *clientv3.Client, cfg Config) *Store {
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	return &Store{cli: cli, cfg: cfg}
}

// op bounds one etcd call. WithRequireLeader makes a member without a leader
// refuse at once (ErrNoLeader) instead of queueing the request, so a cluster
// without quorum fails requests fast and never applies them later.
func (s *Store) op(ctx context.Context, name string) (context.Context, func()) {
	ctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), s.cfg.RequestTimeout)
	start := time.Now()
	return ctx, func() {
		cancel()
		if s.cfg.Observe != nil {
			s.cfg.Observe(name, time.Since(start))
		}
	}
}

func kv(k *mvccKV) storage.KeyValue {
	return storage.KeyValue{Key: string(k.Key), Value: k.Value, CreateRevision: k.CreateRevision, ModRevision: k.ModRevision}
}

// Get reads one key at the latest revision.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	ctx, done := s.op(ctx, "get")
	defer done()
	resp, err := s.cli.Get(ctx, key)
	if err != nil {
		return storage.KeyValue{}, wrap(err, key, 0)
	}
	if len(resp.Kvs) == 0 {
		return storage.KeyValue{}, &storage.Error{Code: storage.ErrNotFound, Key: key}
	}
	return kv(resp.Kvs[0]), nil
}

// List reads keys under prefix, in key order, as of one revision.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	ctx, done := s.op(ctx, "list")
	defer done()
	start := prefix
	if opts.Start != "" {
		if !strings.HasPrefix(opts.Start, prefix) {
			return storage.ListResult{}, &storage.Error{Code: storage.ErrNotFound, Key: opts.Start}
		}
		start = opts.Start
	}
	ops := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(prefix))}
	if opts.Revision > 0 {
		ops = append(ops, clientv3.WithRev(opts.Revision))
	}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(opts.Limit))
	}
	resp, err := s.cli.Get(ctx, start, ops...)
	if err != nil {
		return storage.ListResult{}, wrap(err, prefix, opts.Revision)
	}
	out := storage.ListResult{Items: make([]storage.KeyValue, 0, len(resp.Kvs)), Revision: resp.Header.Revision, More: resp.More}
	for _, k := range resp.Kvs {
		out.Items = append(out.Items, kv(k))
	}
	if resp.More {
		out.Remaining = resp.Count - int64(len(resp.Kvs))
	}
	return out, nil
}

// Create stores key if it does not exist yet.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	ctx, done := s.op(ctx, "create")
	defer done()
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(value))).
		Commit()
	if err != nil {
		return 0, wrap(err, key, 0)
	}
	if !resp.Succeeded {
		return 0, &storage.Error{Code: storage.ErrExists, Key: key}
	}
	return resp.Header.Revision, nil
}

// Update stores key if its ModRevision is still rev.
func (s *Store) Update(ctx context.Context, key string, value []byte, rev int64) (int64, error) {
	ctx, done := s.op(ctx, "update")
	defer done()
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpPut(key, string(value))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return 0, wrap(err, key, rev)
	}
	if !resp.Succeeded {
		return 0, notFoundOrConflict(resp, key, rev)
	}
	return resp.Header.Revision, nil
}

// Delete removes key if its ModRevision is still rev, or unconditionally when rev is 0.
func (s *Store) Delete(ctx context.Context, key string, rev int64) (int64, error) {
	ctx, done := s.op(ctx, "delete")
	defer done()
	cmp := clientv3.Compare(clientv3.ModRevision(key), "=", rev)
	if rev == 0 {
		cmp = clientv3.Compare(clientv3.CreateRevision(key), ">", 0)
	}
	resp, err := s.cli.Txn(ctx).If(cmp).Then(clientv3.OpDelete(key)).Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return 0, wrap(err, key, rev)
	}
	if !resp.Succeeded {
		return 0, notFoundOrConflict(resp, key, rev)
	}
	return resp.Header.Revision, nil
}

func notFoundOrConflict(resp *clientv3.TxnResponse, key string, rev int64) error {
	if len(resp.Responses) == 0 || len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
		return &storage.Error{Code: storage.ErrNotFound, Key: key}
	}
	cur := resp.Responses[0].GetResponseRange().Kvs[0].ModRevision
	return &storage.Error{Code: storage.ErrConflict, Key: key, Rev: cur}
}

// wrap maps etcd client errors onto the storage sentinels.
func wrap(err error, key string, rev int64) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return &storage.Error{Code: storage.ErrCompacted, Key: key, Rev: rev, Err: err}
	case errors.Is(err, rpctypes.ErrFutureRev):
		return &storage.Error{Code: storage.ErrFutureRev, Key: key, Rev: rev, Err: err}
	case errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrGRPCNoLeader):
		return &storage.Error{Code: storage.ErrUnavailable, Key: key, Rev: rev, Err: err}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, rpctypes.ErrTimeout),
		errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail), errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost):
		return &storage.Error{Code: storage.ErrTimeout, Key: key, Rev: rev, Err: err}
	}
	if s, ok := status.FromError(err); ok {
		switch s.Code() {
		case codes.Unavailable:
			return &storage.Error{Code: storage.ErrUnavailable, Key: key, Rev: rev, Err: err}
		case codes.DeadlineExceeded:
			return &storage.Error{Code: storage.ErrTimeout, Key: key, Rev: rev, Err: err}
		}
	}
	return err
}

func isCompacted(err error) bool { return errors.Is(err, rpctypes.ErrCompacted) }
