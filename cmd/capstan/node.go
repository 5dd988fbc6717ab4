package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/agents/containers/cgroups"
	"github.com/capstan-io/capstan/agents/nodeagent"
	"github.com/capstan-io/capstan/apiserver/client"
)

// nodeFlags are the node agent's flags, shared with `capstan up`.
type nodeFlags struct {
	cfg         nodeagent.Config
	runtimeName string
	count       int
	cg          *cgroups.Manager // the process runtime's cgroups, once agents made it
}

// bind adds the flags; dataDirFlag names the data dir flag ("data-dir", or "node-data-dir" beside the server's).
func (f *nodeFlags) bind(fs *flag.FlagSet, dataDirFlag string) {
	host, _ := os.Hostname()
	fs.StringVar(&f.cfg.NodeName, "name", host, "the Node's name")
	fs.StringVar(&f.runtimeName, "runtime", "process", `container runtime: "process" runs real local processes; "fake" simulates them (scale tests only)`)
	fs.IntVar(&f.count, "count", 1, `with --runtime=fake, how many simulated nodes to run (named <name>-0, <name>-1, ...)`)
	fs.StringVar(&f.cfg.DataDir, dataDirFlag, "", "where containers' state, logs and volumes live (default ./capstan-data/nodes/<name>, under --data-dir for up)")
	fs.StringVar(&f.cfg.Address, "address", "", "the node's InternalIP, also every pod's IP (default: the address of the outward interface)")
	fs.StringVar(&f.cfg.ListenAddress, "listen-address", ":10250", "where the agent serves container logs over HTTPS to the hub (its port is the Node's kubelet endpoint)")
	fs.DurationVar(&f.cfg.BackoffBase, "restart-backoff", 10e9, "first crash-loop back-off; it doubles per restart")
	fs.DurationVar(&f.cfg.BackoffMax, "restart-backoff-max", 300e9, "longest crash-loop back-off")
	fs.DurationVar(&f.cfg.LeaseRenewInterval, "lease-renew-interval", 10e9, "how often the node Lease is renewed")
	fs.DurationVar(&f.cfg.LeaseDuration, "lease-duration", 40e9, "the node Lease's duration")
	fs.DurationVar(&f.cfg.StatusUpdateFrequency, "node-status-update-frequency", 60e9, "longest time between Node status posts")
	fs.DurationVar(&f.cfg.SyncPeriod, "sync-period", 1e9, "how often every pod is reconciled without an event")
}

// agents builds the configured agents (several only for --runtime=fake --count).
func (f *nodeFlags) agents(cli *client.Client, base nodeagent.Config) ([]*nodeagent.Agent, error) {
	if f.cfg.DataDir == "" {
		f.cfg.DataDir = filepath.Join("capstan-data", "nodes", f.cfg.NodeName)
	}
	abs, err := filepath.Abs(f.cfg.DataDir)
	if err != nil {
		return nil, err
	}
	f.cfg.DataDir = abs
	cfg := f.cfg
	cfg.Client, cfg.Logger = cli, base.Logger
	switch f.runtimeName {
	case "process":
		if f.count != 1 {
			return nil, fmt.Errorf("--count is only for --runtime=fake")
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		// What the machine allows is looked at once; the agent logs it and
		// reports it on the Node and in LimitsNotEnforced events.
		f.cg = cgroups.Detect(cgroups.Config{})
		rt, err := containers.NewProcess(filepath.Join(cfg.DataDir, "containers"), []string{exe, "container-shim"}, f.cg)
		if err != nil {
			return nil, err
		}
		cfg.Runtime = rt
		a, err := nodeagent.New(cfg)
		if err != nil {
			return nil, err
		}
		return []*nodeagent.Agent{a}, nil
	case "fake":
		var out []*nodeagent.Agent
		for i := range f.count {
			c := cfg
			c.Runtime = containers.NewFake()
			if f.count > 1 {
				c.NodeName = fmt.Sprintf("%s-%d", cfg.NodeName, i)
				c.DataDir = filepath.Join(cfg.DataDir, c.NodeName)
				c.Labels = map[string]string{"capstan.io/runtime": "fake"}
			}
			a, err := nodeagent.New(c)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		return out, nil
	}
	return nil, fmt.Errorf("--runtime must be process or fake, not %q", f.runtimeName)
}

func runNode(ctx context.Context, args []string) error {
	var nf nodeFlags
	fs := flag.NewFlagSet("node", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file with the hub's address and this node's credentials (required)")
	nf.bind(fs, "data-dir")
	fallbacks := addFallbackFlag(fs)
	logf := addLogFlags(fs)
	fs.Parse(args)
	cli, ccfg, log, err := kubeconfigClient(*kubeconfig, *fallbacks, logf)
	if err != nil {
		return err
	}
	nf.cfg.ClientCA = ccfg.CAData
	agents, err := nf.agents(cli, nodeagent.Config{Logger: log})
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, a := range agents {
		g.Go(func() error { return a.Run(ctx) })
	}
	err = g.Wait()
	nf.cg.RemoveParent() // fails, harmlessly, while limited containers keep running
	return err
}

// addFallbackFlag adds an agent's --fallback-servers flag.
func addFallbackFlag(fs *flag.FlagSet) *string {
	return fs.String("fallback-servers", "", "comma-separated further hub URLs, tried when the kubeconfig's server cannot be reached")
}

// kubeconfigClient builds an agent's logger and hub client from its flags;
// fallbacks is the --fallback-servers value.
func kubeconfigClient(kubeconfig, fallbacks string, logf *logFlags) (*client.Client, client.Config, *slog.Logger, error) {
	log, err := logf.logger()
	if err != nil {
		return nil, client.Config{}, nil, err
	}
	if kubeconfig == "" {
		return nil, client.Config{}, nil, errNoKubeconfig
	}
	ccfg, err := client.LoadKubeconfig(kubeconfig)
	if err != nil {
		return nil, client.Config{}, nil, err
	}
	if fallbacks != "" {
		ccfg.FallbackServers = strings.Split(fallbacks, ",")
	}
	cli, err := client.New(ccfg)
	return cli, ccfg, log, err
}
