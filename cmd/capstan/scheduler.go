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
	cfg.Options.AddFlags(fs, "scheduler", "capstan-scheduler")
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
