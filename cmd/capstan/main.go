// Command capstan is the one Capstan binary: `capstan server` runs the hub,
// `capstan scheduler` runs the scheduler, `capstan kubeconfig` prints an
// admin kubeconfig.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/capstan-io/capstan/agents/containers"
)

var commands = map[string]func(ctx context.Context, args []string) error{
	"server":             runServer,
	"scheduler":          runScheduler,
	"controller-manager": runControllerManager,
	"node":               runNode,
	"up":                 runUp,
	"kubeconfig":         runKubeconfig,
	"etcd":               runEtcd,
	"bootstrap":          runBootstrap,
	"healthcheck":        runHealthcheck,
	// container-shim is internal: the node agent runs it as each container's parent.
	"container-shim": func(ctx context.Context, args []string) error {
		os.Exit(containers.ShimMain(args))
		return nil
	},
}

var errNoKubeconfig = errors.New("--kubeconfig is required")

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: capstan <up|server|scheduler|controller-manager|node|kubeconfig|etcd|bootstrap|healthcheck> [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal now kills the process at once
	}()
	if err := commands[os.Args[1]](ctx, os.Args[2:]); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "capstan:", err)
		os.Exit(1)
	}
}
