package main

import (
	"context"
	"flag"
	"strings"

	"github.com/capstan-io/capstan/admission/plugins"
	"github.com/capstan-io/capstan/apiserver"
)

func runServer(ctx context.Context, args []string) error {
	var cfg apiserver.Config
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	fs.StringVar(&cfg.DataDir, "data-dir", "./capstan-data", "directory for TLS material, credentials and the embedded etcd")
	fs.StringVar(&cfg.BindAddress, "bind-address", "127.0.0.1", "IP address to serve HTTPS on")
	fs.IntVar(&cfg.SecurePort, "secure-port", 6443, "port to serve HTTPS on")
	fs.StringVar(&cfg.AdvertiseAddress, "advertise-address", "", "IP address clients should use to reach this server")
	etcd := fs.String("etcd-servers", "", "comma-separated etcd client URLs; empty runs an embedded etcd in --data-dir")
	fs.StringVar(&cfg.EmbeddedEtcdClientURL, "embedded-etcd-client-url", "http://127.0.0.1:2379", "where the embedded etcd serves clients")
	fs.StringVar(&cfg.EmbeddedEtcdPeerURL, "embedded-etcd-peer-url", "http://127.0.0.1:2380", "where the embedded etcd serves peers")
	fs.DurationVar(&cfg.CompactionInterval, "etcd-compaction-interval", 5*60e9, "how often history older than one interval is compacted (0 disables)")
	fs.DurationVar(&cfg.EtcdRequestTimeout, "etcd-request-timeout", 10e9, "bound on each etcd call")
	fs.IntVar(&cfg.MaxRequestsInflight, "max-requests-inflight", 400, "concurrent non-mutating requests before 429")
	fs.IntVar(&cfg.MaxMutatingRequestsInflight, "max-mutating-requests-inflight", 200, "concurrent mutating requests before 429")
	fs.DurationVar(&cfg.BookmarkInterval, "watch-bookmark-interval", 60e9, "how often watches that allow bookmarks get one")
	addAuthFlags(fs, &cfg.Auth)
	disable := fs.String("disable-admission-plugins", "", "comma-separated optional admission plugins to turn off (optional: "+strings.Join(plugins.Optional(), ", ")+")")
	logf := addLogFlags(fs)
	fs.Parse(args)
	if *etcd != "" {
		cfg.EtcdServers = strings.Split(*etcd, ",")
	}
	if *disable != "" {
		cfg.DisableAdmissionPlugins = strings.Split(*disable, ",")
	}
	log, err := logf.logger()
	if err != nil {
		return err
	}
	srv, err := apiserver.New(cfg, log)
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}
