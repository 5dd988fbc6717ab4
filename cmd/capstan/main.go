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
)

var commands = map[string]func(ctx context.Context, args []string) error{
	"server":     runServer,
	"scheduler":  runScheduler,
	"kubeconfig": runKubeconfig,
}

var errNoKubeconfig = errors.New("--kubeconfig is required")

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: capstan <server|scheduler|kubeconfig> [flags]")
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
