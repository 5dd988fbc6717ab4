package etcd3

import (
	"fmt"
	"net/url"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// EmbeddedConfig describes a single-member etcd run inside this process.
type EmbeddedConfig struct {
	Dir string
	// ClientURL and PeerURL are where the member listens; port 0 picks a free port.
	ClientURL, PeerURL string
	// UnsafeNoFsync skips fsync: for tests only.
	UnsafeNoFsync bool
	// Logger receives etcd's own logs; nil discards them.
	Logger *zap.Logger
}

// Embedded is a running in-process etcd member.
type Embedded struct {
	etcd      *embed.Etcd
	closeOnce sync.Once
	// Endpoint is the client URL the member actually listens on.
	Endpoint string
}

// StartEmbedded starts a member and waits until it serves.
func StartEmbedded(cfg EmbeddedConfig) (*Embedded, error) {
	ec := embed.NewConfig()
	ec.Dir = cfg.Dir
	ec.Name = "capstan"
	ec.UnsafeNoFsync = cfg.UnsafeNoFsync
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(cfg.Logger)
	cu, err := url.Parse(cfg.ClientURL)
	if err != nil {
		return nil, fmt.Errorf("parsing etcd client URL: %w", err)
	}
	pu, err := url.Parse(cfg.PeerURL)
	if err != nil {
		return nil, fmt.Errorf("parsing etcd peer URL: %w", err)
	}
	ec.ListenClientUrls, ec.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	ec.ListenPeerUrls, ec.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
	// Keep the member small: the API server compacts on its own schedule.
	ec.SnapshotCount = 10000
	// A lone member has nobody to wait for: a short election timeout lets it
	// become leader, and so start serving, in a small fraction of a second.
	ec.TickMs, ec.ElectionMs = 10, 100
	e, err := embed.StartEtcd(ec)
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd failed: %w", err)
	case <-time.After(30 * time.Second):
		e.Close()
		return nil, fmt.Errorf("embedded etcd not ready after 30s")
	}
	return &Embedded{etcd: e, Endpoint: "http://" + e.Clients[0].Addr().String()}, nil
}

// Client returns a new client for the member; the caller closes it.
func (e *Embedded) Client() (*clientv3.Client, error) {
	return NewClient([]string{e.Endpoint})
}

// Close stops the member.
// Close stops the member; it may be called more than once.
func (e *Embedded) Close() { e.closeOnce.Do(e.etcd.Close) }

// NewClient connects to etcd endpoints with the settings the API server uses.
func NewClient(endpoints []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          5 * time.Second,
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 5 * time.Second,
		AutoSyncInterval:     time.Minute,
		Logger:               zap.NewNop(),
		MaxCallSendMsgSize:   8 << 20,
	})
}
