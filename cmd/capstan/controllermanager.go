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
	cfg.Options.AddFlags(fs, "controller-manager", "capstan-controller-manager")
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
