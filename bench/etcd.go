package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/capstan-io/capstan/storage/etcd3"
)

// rawPrefix holds the baseline's keys, apart from everything the API server watches.
const rawPrefix = "/bench-raw/"

// startEtcd runs the member the API server under test stores in.
func startEtcd(tmp string, noFsync bool) (*etcd3.Embedded, error) {
	client, err := freeURL()
	if err != nil {
		return nil, err
	}
	peer, err := freeURL()
	if err != nil {
		return nil, err
	}
	return etcd3.StartEmbedded(etcd3.EmbeddedConfig{
		Dir:           filepath.Join(tmp, "etcd"),
		ClientURL:     client,
		PeerURL:       peer,
		UnsafeNoFsync: noFsync,
	})
}

// etcdPut is the baseline operation: Put a size-byte value to a key of its own,
// over one client configured as the API server configures its own.
func etcdPut(cli *clientv3.Client, size int) opFunc {
	v := strings.Repeat("v", size)
	return func(ctx context.Context, i int) error {
		_, err := cli.Put(ctx, fmt.Sprintf("%s%06d", rawPrefix, i), v)
		return err
	}
}
