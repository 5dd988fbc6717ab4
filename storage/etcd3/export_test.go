package etcd3

import "context"

// Round exposes one compaction round to the external tests.
func (c *Compactor) Round(ctx context.Context, version, rev int64) (int64, int64, error) {
	return c.round(ctx, version, rev)
}
