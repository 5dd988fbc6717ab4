package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/capstan-io/capstan/auth/pki"
)

// runKubeconfig prints the admin kubeconfig for a server whose data dir is here.
func runKubeconfig(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("kubeconfig", flag.ExitOnError)
	dir := fs.String("data-dir", "./capstan-data", "the server's data directory")
	server := fs.String("server", "https://127.0.0.1:6443", "server URL to write into the kubeconfig")
	fs.Parse(args)
	b, err := pki.Ensure(pki.Config{Dir: *dir})
	if err != nil {
		return err
	}
	cert, key, err := b.AdminClient()
	if err != nil {
		return err
	}
	out, err := pki.Kubeconfig([]string{*server}, b.CAPEM, cert, key, pki.AdminUser)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(os.Stdout, string(out))
	return err
}
