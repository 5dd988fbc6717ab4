package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/capstan-io/capstan/storage/etcd3"
)

// runEtcd runs one member of an etcd cluster from the official etcd server
// library, for the distributed stack where etcd runs as its own processes.
func runEtcd(ctx context.Context, args []string) error {
	var cfg etcd3.EmbeddedConfig
	fs := flag.NewFlagSet("etcd", flag.ExitOnError)
	fs.StringVar(&cfg.Name, "name", "default", "member name")
	fs.StringVar(&cfg.Dir, "data-dir", "./etcd-data", "member data directory")
	fs.StringVar(&cfg.ClientURL, "listen-client-urls", "http://127.0.0.1:2379", "URL to serve clients on")
	fs.StringVar(&cfg.AdvertiseClientURL, "advertise-client-urls", "", "client URL to advertise (default: the listen URL)")
	fs.StringVar(&cfg.PeerURL, "listen-peer-urls", "http://127.0.0.1:2380", "URL to serve peers on")
	fs.StringVar(&cfg.AdvertisePeerURL, "initial-advertise-peer-urls", "", "peer URL to advertise (default: the listen URL)")
	fs.StringVar(&cfg.InitialCluster, "initial-cluster", "", "every member as name=peerURL,... (empty: a cluster of this member alone)")
	fs.StringVar(&cfg.InitialClusterState, "initial-cluster-state", "new", "new or existing")
	fs.StringVar(&cfg.InitialClusterToken, "initial-cluster-token", "capstan-etcd", "token telling clusters apart")
	verbose := fs.Bool("verbose", false, "show etcd's own logs")
	fs.Parse(args)
	cfg.ReadyTimeout = 10 * time.Minute // a member waits for its peers to form a quorum
	if *verbose {
		l, err := zap.NewProduction()
		if err != nil {
			return err
		}
		cfg.Logger = l
	}
	e, err := etcd3.StartEmbedded(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Fprintf(os.Stderr, "etcd member %s serving clients on %s\n", cfg.Name, e.Endpoint)
	select {
	case <-ctx.Done():
		return nil
	case err := <-e.Err():
		return err
	}
}
