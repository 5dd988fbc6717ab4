package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/capstan-io/capstan/agents/leaderelection"
	"github.com/capstan-io/capstan/agents/scheduler"
	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/client"
)

// result is what one run measured.
type result struct {
	Bound          int
	Total          time.Duration // scheduler start to the last binding seen
	BindPhase      time.Duration // first to last binding seen
	MinPerNode     int
	MaxPerNode     int
	Spread         int
	SetupNodesPods time.Duration
	// CPU is the CPU time this process (hub, etcd, scheduler and the counting
	// watch) used from scheduler start to the last binding.
	CPU time.Duration
}

func (r result) print(w io.Writer, cfg Config) {
	fmt.Fprintf(w, "| scheduler: %d pods on %d nodes | %.0f pods/s (%.2fs from scheduler start, incl. cache sync) | %.0f pods/s (first to last binding, %.2fs) | per-node %d..%d, spread %d | CPU %.2fs (%.2f ms/pod; %.0f pods/s if %d idle CPUs were all ours) |\n",
		cfg.Pods, cfg.Nodes, float64(r.Bound)/r.Total.Seconds(), r.Total.Seconds(),
		float64(r.Bound)/r.BindPhase.Seconds(), r.BindPhase.Seconds(), r.MinPerNode, r.MaxPerNode, r.Spread,
		r.CPU.Seconds(), r.CPU.Seconds()*1000/float64(r.Bound), float64(runtime.NumCPU())*float64(r.Bound)/r.CPU.Seconds(), runtime.NumCPU())
}

func run(ctx context.Context, cfg Config) (result, error) {
	log := slog.New(slog.DiscardHandler)
	if cfg.Verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	cli, stop, err := startHub(ctx, cfg, log)
	if err != nil {
		return result{}, err
	}
	defer stop()

	t0 := time.Now()
	if err := createNodes(ctx, cli, cfg.Nodes); err != nil {
		return result{}, err
	}
	rv, err := createPods(ctx, cli, cfg.Pods)
	if err != nil {
		return result{}, err
	}
	res := result{SetupNodesPods: time.Since(t0)}

	w, err := cli.Resource("", "v1", "pods").Watch(ctx, client.ListOptions{ResourceVersion: rv})
	if err != nil {
		return result{}, fmt.Errorf("watching pods: %w", err)
	}
	defer w.Stop()

	s, err := scheduler.New(scheduler.Config{Client: cli, BindWorkers: cfg.BindWorkers, Options: leaderelection.Options{LeaderElect: true}, Logger: log})
	if err != nil {
		return result{}, err
	}
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return result{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return result{}, err
		}
		defer pprof.StopCPUProfile()
	}
	sctx, scancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.Run(sctx); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "scheduler:", err)
		}
	}()
	defer func() { scancel(); wg.Wait() }()

	perNode := map[string]int{}
	seen := map[string]bool{}
	var first, last time.Time
	for len(seen) < cfg.Pods {
		select {
		case <-ctx.Done():
			return result{}, fmt.Errorf("only %d of %d pods bound: %w", len(seen), cfg.Pods, ctx.Err())
		case ev, ok := <-w.Events():
			if !ok {
				return result{}, fmt.Errorf("pod watch ended after %d bindings: %v", len(seen), w.Err())
			}
			node := api.NestedString(ev.Object, "spec", "nodeName")
			if node == "" || seen[ev.Object.Name()] {
				continue
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			last = now
			seen[ev.Object.Name()] = true
			perNode[node]++
		}
	}
	res.CPU = cpuTime() - cpu0
	res.Bound = len(seen)
	res.Total = last.Sub(start)
	res.BindPhase = last.Sub(first)
	res.MinPerNode, res.MaxPerNode = 1<<30, 0
	for i := range cfg.Nodes {
		n := perNode[nodeName(i)]
		res.MinPerNode, res.MaxPerNode = min(res.MinPerNode, n), max(res.MaxPerNode, n)
	}
	res.Spread = res.MaxPerNode - res.MinPerNode
	return res, nil
}

// startHub runs a hub on an embedded etcd in a temporary directory.
func startHub(ctx context.Context, cfg Config, log *slog.Logger) (*client.Client, func(), error) {
	dir, err := os.MkdirTemp("", "capstan-bench-scheduler-")
	if err != nil {
		return nil, nil, err
	}
	etcdClient, etcdPeer := freeURL(), freeURL()
	srv, err := apiserver.New(apiserver.Config{
		DataDir: dir, BindAddress: "127.0.0.1", EmbeddedEtcdClientURL: etcdClient, EmbeddedEtcdPeerURL: etcdPeer,
		UnsafeNoFsync: cfg.UnsafeNoFsync, ShutdownTimeout: 5 * time.Second,
	}, log)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	sctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.Run(sctx) }()
	stop := func() {
		cancel()
		<-errc
		os.RemoveAll(dir)
	}
	select {
	case <-srv.Ready():
	case err := <-errc:
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("hub failed: %w", err)
	case <-ctx.Done():
		stop()
		return nil, nil, ctx.Err()
	}
	b := srv.PKI()
	cli, err := client.New(client.Config{Server: srv.URL(), CAData: b.CAPEM, Token: b.AdminToken})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return cli, stop, nil
}

func freeURL() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String()
}

// cpuTime is the user plus system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
