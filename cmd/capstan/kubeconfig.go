package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/capstan-io/capstan/auth/pki"
)

// groupFlags collects a repeatable --group.
type groupFlags []string

func (g *groupFlags) String() string     { return fmt.Sprint(*g) }
func (g *groupFlags) Set(v string) error { *g = append(*g, v); return nil }

// runKubeconfig prints a kubeconfig for a server whose data dir is here: the
// admin's by default, or a new client certificate for --user and --group.
func runKubeconfig(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("kubeconfig", flag.ExitOnError)
	dir := fs.String("data-dir", "./capstan-data", "the server's data directory")
	server := fs.String("server", "https://127.0.0.1:6443", "server URL to write into the kubeconfig")
	user := fs.String("user", "", "mint a client certificate for this user (CN) instead of using the admin's")
	var groups groupFlags
	fs.Var(&groups, "group", "group (O) of the minted certificate; repeatable")
	fs.Parse(args)
	if *user == "" && len(groups) > 0 {
		return fmt.Errorf("--group needs --user")
	}
	b, err := pki.Ensure(pki.Config{Dir: *dir})
	if err != nil {
		return err
	}
	name := pki.AdminUser
	var cert, key []byte
	if *user == "" {
		cert, key, err = b.AdminClient()
	} else {
		name = *user
		cert, key, err = b.IssueClient(*user, groups)
	}
	if err != nil {
		return err
	}
	out, err := pki.Kubeconfig([]string{*server}, b.CAPEM, cert, key, name)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(os.Stdout, string(out))
	return err
}
