package etcd3_test

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/capstan-io/capstan/storage/etcd3"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// TestCompactorsShareRounds: two servers' compactors on one etcd compact once per round between them.
func TestCompactorsShareRounds(t *testing.T) {
	cli := storagetest.RunEtcd(t)
	ctx := context.Background()
	a, b := etcd3.NewCompactor(cli, time.Hour, nil), etcd3.NewCompactor(cli, time.Hour, nil)
	va, ra, err := a.Round(ctx, 0, 0)
	if err != nil || va != 1 {
		t.Fatalf("first round: version %d err %v", va, err)
	}
	vb, rb, err := b.Round(ctx, 0, 0)
	if err != nil || vb != 1 {
		t.Fatalf("second compactor should see round 1 taken: version %d err %v", vb, err)
	}
	cli.Put(ctx, "/x", "1")
	if va, _, err = a.Round(ctx, va, ra); err != nil || va != 2 {
		t.Fatalf("next round: version %d err %v", va, err)
	}
	if vb, _, err = b.Round(ctx, vb, rb); err != nil || vb != 2 {
		t.Fatalf("b should follow to version 2 without compacting: %d %v", vb, err)
	}
	if _, err := cli.Get(ctx, "/x", clientv3WithRev(ra)); err != nil {
		t.Fatalf("revision %d should be readable right after being the compaction point: %v", ra, err)
	}
	if _, err := cli.Get(ctx, "/x", clientv3WithRev(ra-1)); err == nil {
		t.Fatalf("revision %d should be compacted", ra-1)
	}
}

var clientv3WithRev = clientv3.WithRev
