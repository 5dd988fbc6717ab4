package leaderelection

import (
	"context"
	"flag"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/apiserver/client"
)

// Options are the leader-election settings of an agent with replicas (the
// scheduler, the controller-manager), embedded in its Config and set by the
// kube-style --leader-elect* flags (AddFlags).
type Options struct {
	// LeaderElect runs the agent only while it holds the Lease
	// LeaseNamespace/LeaseName.
	LeaderElect               bool
	LeaseNamespace, LeaseName string
	// Identity is this replica's name in the Lease; "" means DefaultIdentity.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod tune the election; 0
	// means 15s, 10s and 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// AddFlags binds o to the --leader-elect* flags of kube's agents; who names
// the agent in the help text and leaseName is the default Lease name.
func (o *Options) AddFlags(fs *flag.FlagSet, who, leaseName string) {
	fs.BoolVar(&o.LeaderElect, "leader-elect", true, "act only while holding the "+who+" Lease, so replicas are safe")
	fs.StringVar(&o.LeaseNamespace, "leader-elect-resource-namespace", "kube-system", "namespace of the leader election Lease")
	fs.StringVar(&o.LeaseName, "leader-elect-resource-name", leaseName, "name of the leader election Lease")
	fs.StringVar(&o.Identity, "leader-elect-identity", "", "this replica's name in the Lease (default: hostname and a random suffix)")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long standbys wait after the last renewal they saw")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader tries to renew before giving up")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "wait between acquire and renew attempts")
}

// Default fills an empty Lease namespace (kube-system) and name (leaseName).
func (o *Options) Default(leaseName string) {
	if o.LeaseNamespace == "" {
		o.LeaseNamespace = "kube-system"
	}
	if o.LeaseName == "" {
		o.LeaseName = leaseName
	}
}

// Run runs fn: with LeaderElect only while this process holds the Lease
// (RunWhileLeading), else at once.
func (o Options) Run(ctx context.Context, cli *client.Client, log *slog.Logger, fn func(context.Context) error) error {
	if !o.LeaderElect {
		return fn(ctx)
	}
	return RunWhileLeading(ctx, Config{
		Client: cli, Namespace: o.LeaseNamespace, Name: o.LeaseName, Identity: o.Identity,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod, Logger: log,
	}, fn)
}
