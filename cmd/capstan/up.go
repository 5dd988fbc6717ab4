package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/capstan-io/capstan/agents/controllers"
	"github.com/capstan-io/capstan/agents/nodeagent"
	"github.com/capstan-io/capstan/agents/scheduler"
	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/client"
)

// runUp runs the whole cluster in one process: embedded etcd and the hub,
// the scheduler, the controllers and one node running real processes.
func runUp(ctx context.Context, args []string) error {
	var cfg apiserver.Config
	var nf nodeFlags
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	fs.StringVar(&cfg.DataDir, "data-dir", "./capstan-data", "directory for etcd, TLS material, credentials and the node's containers")
	fs.StringVar(&cfg.BindAddress, "bind-address", "127.0.0.1", "IP address to serve HTTPS on")
	fs.IntVar(&cfg.SecurePort, "secure-port", 6443, "port to serve HTTPS on")
	fs.StringVar(&cfg.EmbeddedEtcdClientURL, "embedded-etcd-client-url", "http://127.0.0.1:2379", "where the embedded etcd serves clients")
	fs.StringVar(&cfg.EmbeddedEtcdPeerURL, "embedded-etcd-peer-url", "http://127.0.0.1:2380", "where the embedded etcd serves peers")
	nf.bind(fs, "node-data-dir")
	logf := addLogFlags(fs)
	fs.Parse(args)
	if nf.runtimeName != "process" || nf.count != 1 {
		return fmt.Errorf("capstan up runs one process node; use capstan node for fake nodes")
	}
	if nf.cfg.DataDir == "" {
		nf.cfg.DataDir = filepath.Join(cfg.DataDir, "nodes", nf.cfg.NodeName)
	}
	log, err := logf.logger()
	if err != nil {
		return err
	}
	cfg.CompactionInterval, cfg.EtcdRequestTimeout = 5*time.Minute, 10*time.Second
	cfg.MaxRequestsInflight, cfg.MaxMutatingRequestsInflight, cfg.BookmarkInterval = 400, 200, time.Minute
	srv, err := apiserver.New(cfg, log.With("component", "server"))
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(gctx) })
	select {
	case <-srv.Ready():
	case <-gctx.Done():
		return g.Wait()
	}
	kubeconfig := srv.KubeconfigPath()
	ccfg, err := client.LoadKubeconfig(kubeconfig)
	if err != nil {
		return err
	}
	// Each agent runs as its own least-privileged identity, as in Kubernetes.
	as := func(user string, groups ...string) (*client.Client, error) {
		cert, key, err := srv.PKI().IssueClient(user, groups)
		if err != nil {
			return nil, err
		}
		return client.New(client.Config{Server: ccfg.Server, CAData: ccfg.CAData, CertData: cert, KeyData: key})
	}
	schedCli, err := as("system:kube-scheduler")
	if err != nil {
		return err
	}
	cmCli, err := as("system:kube-controller-manager")
	if err != nil {
		return err
	}
	nodeCli, err := as("system:node:"+nf.cfg.NodeName, "system:nodes")
	if err != nil {
		return err
	}
	sched, err := scheduler.New(scheduler.Config{Client: schedCli, Logger: log.With("component", "scheduler")})
	if err != nil {
		return err
	}
	cm, err := controllers.New(controllers.Config{Client: cmCli, Syncs: map[string]int{}, Logger: log.With("component", "controller-manager")})
	if err != nil {
		return err
	}
	nf.cfg.ClientCA = ccfg.CAData
	nodes, err := nf.agents(nodeCli, nodeagent.Config{Logger: log.With("component", "node")})
	if err != nil {
		return err
	}
	g.Go(func() error { return sched.Run(gctx) })
	g.Go(func() error { return cm.Run(gctx) })
	g.Go(func() error { return nodes[0].Run(gctx) })
	abs, _ := filepath.Abs(kubeconfig)
	fmt.Fprintf(os.Stderr, `
Capstan is up: server, scheduler, controllers and node %q (data in %s).

  export KUBECONFIG=%s
  kubectl apply -f examples/web.yaml
  kubectl get pods -o wide

Ctrl-C stops it all; pods' processes are stopped too (SIGTERM, then SIGKILL
after 10s) and the pods start again on the next
capstan up.
`, nf.cfg.NodeName, cfg.DataDir, abs)
	err = g.Wait()
	fmt.Fprintln(os.Stderr, "capstan up: stopping pods' processes...")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	n := nodes[0].StopContainers(sctx, 10*time.Second)
	nf.cg.RemoveParent() // the stopped containers' shims removed their groups
	fmt.Fprintf(os.Stderr, "capstan up: stopped %d processes; state kept in %s\n", n, cfg.DataDir)
	return err
}
