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

// EmbeddedConfig describes an etcd member run inside this process: by default
// a single-member cluster, or one member of a larger one when InitialCluster is set.
type EmbeddedConfig struct {
	Dir string
	// Name is the member's name; empty means "capstan".
	Name string
	// ClientURL and PeerURL are where the member listens; port 0 picks a free port.
	ClientURL, PeerURL string
	// AdvertiseClientURL and AdvertisePeerURL are how others reach it; empty means the listen URLs.
	AdvertiseClientURL, AdvertisePeerURL string
	// InitialCluster lists every member as name=peerURL,...; empty means this member alone.
	InitialCluster string
	// InitialClusterState is "new" (default) or "existing".
	InitialClusterState string
	// InitialClusterToken tells clusters apart; empty means etcd's default.
	InitialClusterToken string
	// ReadyTimeout bounds the wait for the member to serve (a cluster member
	// waits for quorum); 0 means 30s.
	ReadyTimeout time.Duration
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
	ec.Name = cfg.Name
	if ec.Name == "" {
		ec.Name = "capstan"
	}
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
	acu, apu := *cu, *pu
	if cfg.AdvertiseClientURL != "" {
		u, err := url.Parse(cfg.AdvertiseClientURL)
		if err != nil {
			return nil, fmt.Errorf("parsing etcd advertise client URL: %w", err)
		}
		acu = *u
	}
	if cfg.AdvertisePeerURL != "" {
		u, err := url.Parse(cfg.AdvertisePeerURL)
		if err != nil {
			return nil, fmt.Errorf("parsing etcd advertise peer URL: %w", err)
		}
		apu = *u
	}
	ec.ListenClientUrls, ec.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{acu}
	ec.ListenPeerUrls, ec.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{apu}
	// Keep the member small: the API server compacts on its own schedule.
	ec.SnapshotCount = 10000
	if cfg.InitialCluster == "" {
		ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
		// A lone member has nobody to wait for: a short election timeout lets it
		// become leader, and so start serving, in a small fraction of a second.
		ec.TickMs, ec.ElectionMs = 10, 100
	} else {
		ec.InitialCluster = cfg.InitialCluster
		if cfg.InitialClusterState != "" {
			ec.ClusterState = cfg.InitialClusterState
		}
		if cfg.InitialClusterToken != "" {
			ec.InitialClusterToken = cfg.InitialClusterToken
		}
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 30 * time.Second
	}
	e, err := embed.StartEtcd(ec)
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd failed: %w", err)
	case <-time.After(cfg.ReadyTimeout):
		e.Close()
		return nil, fmt.Errorf("embedded etcd not ready after %v", cfg.ReadyTimeout)
	}
	return &Embedded{etcd: e, Endpoint: "http://" + e.Clients[0].Addr().String()}, nil
}

// Client returns a new client for the member; the caller closes it.
func (e *Embedded) Client() (*clientv3.Client, error) {
	return NewClient([]string{e.Endpoint})
}

// Close stops the member.
// Err reports a fatal error of the running member.
func (e *Embedded) Err() <-chan error { return e.etcd.Err() }

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
