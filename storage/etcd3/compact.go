package etcd3

import (
	"context"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactKey is a marker every API server's compactor bumps, as kube-apiserver
// does: its version tells a compactor whether another one already compacted in
// this round, so servers sharing one etcd compact once per interval between them.
const compactKey = "compact_rev_key"

// Compactor periodically compacts etcd history older than one interval.
type Compactor struct {
	cli      *clientv3.Client
	interval time.Duration
	log      *slog.Logger
}

// NewCompactor returns a Compactor that keeps about interval of history.
func NewCompactor(cli *clientv3.Client, interval time.Duration, log *slog.Logger) *Compactor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Compactor{cli: cli, interval: interval, log: log}
}

// Run compacts every interval until ctx ends. Each round compacts to the revision
// recorded one round earlier, so at least one interval of history is always kept.
func (c *Compactor) Run(ctx context.Context) error {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	var version, rev int64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		v, r, err := c.round(ctx, version, rev)
		if err != nil {
			c.log.Warn("compaction failed", "err", err)
			continue
		}
		version, rev = v, r
	}
}

// round records the current revision in the marker if its version is still
// version (nobody else took this round) and then compacts to rev, the revision
// recorded in the previous round. It returns the marker's version and the
// revision for the next round.
func (c *Compactor) round(ctx context.Context, version, rev int64) (int64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := c.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(compactKey), "=", version)).
		Then(clientv3.OpPut(compactKey, "")).
		Else(clientv3.OpGet(compactKey)).
		Commit()
	if err != nil {
		return version, rev, err
	}
	cur := resp.Header.Revision
	if !resp.Succeeded {
		// Another server compacted this round; follow its marker.
		return resp.Responses[0].GetResponseRange().Kvs[0].Version, cur, nil
	}
	if rev > 0 {
		if _, err := c.cli.Compact(ctx, rev); err != nil && !isCompacted(err) {
			return version + 1, cur, err
		}
		c.log.Info("compacted etcd", "revision", rev)
	}
	return version + 1, cur, nil
}

// Once compacts to rev (when positive) and returns the current revision; tests use it.
func (c *Compactor) Once(ctx context.Context, rev int64) (int64, error) {
	resp, err := c.cli.Get(ctx, compactKey)
	if err != nil {
		return 0, err
	}
	var version int64
	if len(resp.Kvs) > 0 {
		version = resp.Kvs[0].Version
	}
	_, cur, err := c.round(ctx, version, rev)
	return cur, err
}
