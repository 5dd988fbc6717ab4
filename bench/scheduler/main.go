// Command scheduler benchmarks `capstan scheduler` against an in-process hub:
//
//	go run ./bench/scheduler [--nodes 100] [--pods 3000] [--bind-workers 32]
//
// It starts a hub on an embedded etcd in a temporary directory, creates Ready
// nodes (cpu 32, memory 64Gi, pods 110) and identical pending pods, then runs
// the scheduler (with leader election, as deployed) and reports pods bound per
// second and the per-node spread (max-min pods per node). Everything runs on
// 127.0.0.1 in this process, so hub, etcd and scheduler share the machine's CPUs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Config is the run's settings, bound from flags.
type Config struct {
	Nodes, Pods   int           // cluster size
	BindWorkers   int           // the scheduler's concurrent bindings
	UnsafeNoFsync bool          // run etcd without fsync
	Timeout       time.Duration // bound on the whole run
	Verbose       bool          // log the hub and the scheduler to stderr
	CPUProfile    string        // if set, a CPU profile of the scheduling phase (hub and scheduler) is written here
}

// Validate reports settings the run cannot use.
func (c *Config) Validate() error {
	if c.Nodes < 1 || c.Pods < 1 {
		return errors.New("--nodes and --pods must be at least 1")
	}
	if c.Pods > c.Nodes*110 {
		return fmt.Errorf("--pods %d do not fit on %d nodes of 110 pods", c.Pods, c.Nodes)
	}
	return nil
}

func main() {
	var cfg Config
	flag.IntVar(&cfg.Nodes, "nodes", 100, "Node objects to create")
	flag.IntVar(&cfg.Pods, "pods", 3000, "pending pods to schedule")
	flag.IntVar(&cfg.BindWorkers, "bind-workers", 32, "the scheduler's concurrent bindings")
	flag.BoolVar(&cfg.UnsafeNoFsync, "unsafe-no-fsync", false, "run etcd without fsync")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "bound on the whole run")
	flag.BoolVar(&cfg.Verbose, "v", false, "log the hub and scheduler")
	flag.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the scheduling phase to this file")
	flag.Parse()
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/scheduler:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	res, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/scheduler:", err)
		os.Exit(1)
	}
	res.print(os.Stdout, cfg)
	if res.Spread > 2 {
		os.Exit(1)
	}
}
