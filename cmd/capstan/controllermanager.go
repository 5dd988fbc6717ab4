package main

import (
	"context"
	"flag"
	"strings"

	"github.com/capstan-io/capstan/agents/controllers"
)

func runControllerManager(ctx context.Context, args []string) error {
	cfg := controllers.Config{Syncs: map[string]int{}}
	fs := flag.NewFlagSet("controller-manager", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file with the hub's address and this manager's credentials (required)")
	list := fs.String("controllers", "*", "controllers to run: '*' is all, 'foo' enables foo, '-foo' disables it; known: "+strings.Join(controllers.Names, ", "))
	fs.BoolVar(&cfg.LeaderElect, "leader-elect", true, "act only while holding the controller-manager Lease, so replicas are safe")
	fs.StringVar(&cfg.LeaseNamespace, "leader-elect-resource-namespace", "kube-system", "namespace of the leader election Lease")
	fs.StringVar(&cfg.LeaseName, "leader-elect-resource-name", "capstan-controller-manager", "name of the leader election Lease")
	fs.StringVar(&cfg.Identity, "leader-elect-identity", "", "this replica's name in the Lease (default: hostname and a random suffix)")
	fs.DurationVar(&cfg.LeaseDuration, "leader-elect-lease-duration", 15e9, "how long standbys wait after the last renewal they saw")
	fs.DurationVar(&cfg.RenewDeadline, "leader-elect-renew-deadline", 10e9, "how long the leader tries to renew before giving up")
	fs.DurationVar(&cfg.RetryPeriod, "leader-elect-retry-period", 2e9, "wait between acquire and renew attempts")
	fs.DurationVar(&cfg.NodeMonitorGracePeriod, "node-monitor-grace-period", 40e9, "how long a node Lease may go unrenewed before the node is unreachable")
	fs.DurationVar(&cfg.PodEvictionTimeout, "pod-eviction-timeout", 300e9, "default toleration of unreachable nodes before their pods are evicted")
	syncs := map[string]*int{}
	for _, n := range controllers.Names {
		flagName := n
		if n == "garbagecollector" {
			flagName = "gc" // kube-controller-manager's --concurrent-gc-syncs
		}
		syncs[n] = fs.Int("concurrent-"+flagName+"-syncs", 0, "objects the "+n+" controller syncs at once (0: its default)")
	}
	fallbacks := addFallbackFlag(fs)
	logf := addLogFlags(fs)
	fs.Parse(args)
	cli, _, log, err := kubeconfigClient(*kubeconfig, *fallbacks, logf)
	if err != nil {
		return err
	}
	cfg.Client = cli
	cfg.Controllers = strings.Split(*list, ",")
	for n, v := range syncs {
		cfg.Syncs[n] = *v
	}
	cfg.Logger = log
	m, err := controllers.New(cfg)
	if err != nil {
		return err
	}
	return m.Run(ctx)
}
