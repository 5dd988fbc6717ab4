package apiserver

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// Config is everything a Server needs. Zero values take the defaults set by SetDefaults.
type Config struct {
	// DataDir holds TLS material, the admin credential and kubeconfig, and the embedded etcd's data.
	DataDir string
	// BindAddress and SecurePort are where HTTPS is served; port 0 picks a free port.
	BindAddress string
	SecurePort  int
	// AdvertiseAddress is the address clients are told to use; it is added to the serving certificate.
	AdvertiseAddress string
	// EtcdServers, if set, are the client URLs of an external etcd cluster; otherwise an embedded member runs in DataDir.
	EtcdServers []string
	// EmbeddedEtcdClientURL and EmbeddedEtcdPeerURL are where the embedded member listens.
	EmbeddedEtcdClientURL, EmbeddedEtcdPeerURL string
	// EtcdRequestTimeout bounds each etcd call, so a lost quorum fails a request instead of hanging it.
	EtcdRequestTimeout time.Duration
	// CompactionInterval is how often etcd history older than one interval is compacted; 0 disables compaction.
	CompactionInterval time.Duration
	// MaxRequestsInflight and MaxMutatingRequestsInflight cap concurrent non-watch requests; beyond them the answer is 429.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	// BookmarkInterval is how often watches that allow bookmarks get one.
	BookmarkInterval time.Duration
	// ShutdownTimeout bounds the graceful shutdown of HTTP connections.
	ShutdownTimeout time.Duration
	// DisableAdmissionPlugins names optional admission plugins to turn off (see admission/plugins).
	DisableAdmissionPlugins []string
	// UnsafeNoFsync runs the embedded etcd without fsync: for tests only.
	UnsafeNoFsync bool

	// Auth configures authentication, authorization, TLS serving and auditing.
	Auth AuthConfig
}

// SetDefaults fills unset fields.
func (c *Config) SetDefaults() {
	if c.DataDir == "" {
		c.DataDir = "./capstan-data"
	}
	if c.BindAddress == "" {
		c.BindAddress = "127.0.0.1"
	}
	if c.EmbeddedEtcdClientURL == "" {
		c.EmbeddedEtcdClientURL = "http://127.0.0.1:2379"
	}
	if c.EmbeddedEtcdPeerURL == "" {
		c.EmbeddedEtcdPeerURL = "http://127.0.0.1:2380"
	}
	if c.EtcdRequestTimeout == 0 {
		c.EtcdRequestTimeout = 10 * time.Second
	}
	if c.MaxRequestsInflight == 0 {
		c.MaxRequestsInflight = 400
	}
	if c.MaxMutatingRequestsInflight == 0 {
		c.MaxMutatingRequestsInflight = 200
	}
	if c.BookmarkInterval == 0 {
		c.BookmarkInterval = time.Minute
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = 10 * time.Second
	}
	c.Auth.setDefaults()
}

// Validate reports a configuration that cannot work.
func (c *Config) Validate() error {
	var errs []error
	if net.ParseIP(c.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not an IP address", c.BindAddress))
	}
	if c.SecurePort < 0 || c.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d is out of range", c.SecurePort))
	}
	if c.AdvertiseAddress != "" && net.ParseIP(c.AdvertiseAddress) == nil {
		errs = append(errs, fmt.Errorf("--advertise-address %q is not an IP address", c.AdvertiseAddress))
	}
	if c.MaxRequestsInflight < 0 || c.MaxMutatingRequestsInflight < 0 {
		errs = append(errs, errors.New("in-flight limits must not be negative"))
	}
	errs = append(errs, c.Auth.validate())
	return errors.Join(errs...)
}
