package main

import (
	"context"
	"flag"

	"github.com/capstan-io/capstan/agents/scheduler"
)

func runScheduler(ctx context.Context, args []string) error {
	var cfg scheduler.Config
	fs := flag.NewFlagSet("scheduler", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file with the hub's address and this scheduler's credentials (required)")
	fs.StringVar(&cfg.SchedulerName, "scheduler-name", scheduler.DefaultSchedulerName, "the spec.schedulerName this scheduler serves")
	fs.IntVar(&cfg.BindWorkers, "bind-workers", 32, "bindings written concurrently")
	fs.DurationVar(&cfg.FlushInterval, "unschedulable-flush-interval", 60e9, "how often unschedulable pods are retried when nothing changed")
	fs.BoolVar(&cfg.LeaderElect, "leader-elect", true, "act only while holding the scheduler Lease, so replicas are safe")
	fs.StringVar(&cfg.LeaseNamespace, "leader-elect-resource-namespace", "kube-system", "namespace of the leader election Lease")
	fs.StringVar(&cfg.LeaseName, "leader-elect-resource-name", "capstan-scheduler", "name of the leader election Lease")
	fs.StringVar(&cfg.Identity, "leader-elect-identity", "", "this replica's name in the Lease (default: hostname and a random suffix)")
	fs.DurationVar(&cfg.LeaseDuration, "leader-elect-lease-duration", 15e9, "how long standbys wait after the last renewal they saw")
	fs.DurationVar(&cfg.RenewDeadline, "leader-elect-renew-deadline", 10e9, "how long the leader tries to renew before giving up")
	fs.DurationVar(&cfg.RetryPeriod, "leader-elect-retry-period", 2e9, "wait between acquire and renew attempts")
	fallbacks := addFallbackFlag(fs)
	logf := addLogFlags(fs)
	fs.Parse(args)
	cli, _, log, err := kubeconfigClient(*kubeconfig, *fallbacks, logf)
	if err != nil {
		return err
	}
	cfg.Client = cli
	cfg.Logger = log
	s, err := scheduler.New(cfg)
	if err != nil {
		return err
	}
	return s.Run(ctx)
}
