package nodeagent

import (
	"errors"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/apiserver/client"
)

// KubeletVersion is reported in the Node's nodeInfo.
const KubeletVersion = "v1.32.0-capstan"

// Config configures one node agent.
type Config struct {
	// Client reaches the hub.
	Client *client.Client
	// NodeName is the Node this agent registers and serves.
	NodeName string
	// Runtime runs the containers.
	Runtime containers.Runtime
	// DataDir holds per-pod volumes ("pods/<uid>/volumes/<name>").
	DataDir string
	// Address is the node's InternalIP, also every pod's IP; "" detects it.
	Address string
	// ListenAddress is where container logs are served over HTTPS
	// (host:port; port 0 picks one); its port is reported as
	// status.daemonEndpoints.kubeletEndpoint.Port. "" means ":10250".
	// The fake runtime serves no logs.
	ListenAddress string
	// ClientCA is the PEM of the cluster CA; only the hub's client
	// certificate (CN api.NodeProxyUser) signed by it may read logs.
	ClientCA []byte
	// Labels are added to the Node's well-known labels.
	Labels map[string]string
	// BackoffBase and BackoffMax bound the crash-loop back-off; 0 means 10s and 5m.
	BackoffBase, BackoffMax time.Duration
	// LeaseDuration is the Lease's leaseDurationSeconds; 0 means 40s.
	LeaseDuration time.Duration
	// LeaseRenewInterval is how often the Lease is renewed; 0 means 10s.
	LeaseRenewInterval time.Duration
	// StatusUpdateFrequency is the longest the Node's conditions go unposted; 0 means 1m.
	StatusUpdateFrequency time.Duration
	// SyncPeriod is how often every pod is reconciled without an event; 0 means 1s.
	SyncPeriod time.Duration
	// Logger receives the agent's logs; nil discards.
	Logger *slog.Logger
}

func (c *Config) defaults() error {
	if c.Client == nil {
		return errors.New("nodeagent: no client")
	}
	if c.NodeName == "" {
		return errors.New("nodeagent: no node name")
	}
	if c.Runtime == nil {
		return errors.New("nodeagent: no runtime")
	}
	if c.DataDir == "" {
		return errors.New("nodeagent: no data dir")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.BackoffBase, 10*time.Second)
	def(&c.BackoffMax, 5*time.Minute)
	def(&c.LeaseDuration, 40*time.Second)
	def(&c.LeaseRenewInterval, 10*time.Second)
	def(&c.StatusUpdateFrequency, time.Minute)
	def(&c.SyncPeriod, time.Second)
	if c.ListenAddress == "" {
		c.ListenAddress = ":10250"
	}
	if c.Address == "" {
		c.Address = detectAddress()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}
