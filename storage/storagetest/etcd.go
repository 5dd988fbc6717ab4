package storagetest

import (
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/capstan-io/capstan/storage/etcd3"
)

// RunEtcd starts a fresh embedded etcd member in t.TempDir (no fsync, free ports)
// and returns a client to it. Both are closed when the test ends.
func RunEtcd(t testing.TB) *clientv3.Client {
	t.Helper()
	e, _ := RunEtcdMember(t)
	cli, err := e.Client()
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// RunEtcdMember is RunEtcd for tests that need the member itself (to stop it) or its endpoint.
func RunEtcdMember(t testing.TB) (*etcd3.Embedded, string) {
	t.Helper()
	e, err := etcd3.StartEmbedded(etcd3.EmbeddedConfig{
		Dir:           t.TempDir(),
		ClientURL:     "http://127.0.0.1:0",
		PeerURL:       "http://127.0.0.1:0",
		UnsafeNoFsync: true,
	})
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	t.Cleanup(e.Close)
	return e, e.Endpoint
}
