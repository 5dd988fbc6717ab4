package etcd3

import (
	"context"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactKey records the last revision this cluster's compactor took, so several
// API servers sharing one etcd compact once per interval rather than each on its own.
const compactKey = "/registry/compact_rev_key"

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
// observed one round earlier, so at least one interval of history is always kept.
func (c *Compactor) Run(ctx context.Context) error {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	var prev int64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		cur, err := c.Once(ctx, prev)
		if err != nil {
			c.log.Warn("compaction failed", "err", err)
			continue
		}
		prev = cur
	}
}

// Once compacts to rev (when positive) and returns the current revision, which the next round compacts to.
func (c *Compactor) Once(ctx context.Context, rev int64) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Bump the marker key; its write also tells us the current revision.
	resp, err := c.cli.Put(ctx, compactKey, "")
	if err != nil {
		return 0, err
	}
	if rev > 0 {
		if _, err := c.cli.Compact(ctx, rev); err != nil && !isCompacted(err) {
			return 0, err
		}
		c.log.Info("compacted etcd", "revision", rev)
	}
	return resp.Header.Revision, nil
}
