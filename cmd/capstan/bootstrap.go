package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/capstan-io/capstan/auth/pki"
)

// clusterSeedFiles are what every hub replica of one cluster shares: the CA,
// the admin token and the ServiceAccount signing key. Each replica issues its
// own serving certificate from the shared CA at start.
var clusterSeedFiles = []string{"ca.crt", "ca.key", "admin.token", "sa.key"}

// runBootstrap creates, once, the credentials of a cluster of several hub
// replicas and agents (the init step of the docker-compose stack):
//
//	<dir>/ca/                      the cluster CA, admin token and ServiceAccount key
//	<dir>/<server>/                a data dir per --server, seeded with those
//	<dir>/<agent>.kubeconfig       scheduler, controller-manager, node-<name>
//	--admin-kubeconfig             the admin's, listing --admin-servers
//
// Files that exist are kept, so running it again changes nothing.
func runBootstrap(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("bootstrap", flag.ExitOnError)
	dir := flags.String("dir", "/var/lib/capstan/pki", "where the cluster's credentials are written")
	servers := flags.String("servers", "", "comma-separated name=URL of every hub replica, e.g. server1=https://server1:6443 (required)")
	nodes := flags.String("nodes", "", "comma-separated node names to issue node credentials for")
	adminPath := flags.String("admin-kubeconfig", "", "where to write the admin kubeconfig (default <dir>/admin.kubeconfig)")
	adminServers := flags.String("admin-servers", "", "comma-separated hub URLs for the admin kubeconfig, as seen by the admin (default: the --servers URLs)")
	flags.Parse(args)

	names, urls, err := parseServers(*servers)
	if err != nil {
		return err
	}
	caDir := filepath.Join(*dir, "ca")
	b, err := pki.Ensure(pki.Config{Dir: caDir})
	if err != nil {
		return err
	}
	if _, err := pki.LoadOrCreateKey(filepath.Join(caDir, "sa.key")); err != nil {
		return err
	}
	for _, n := range names {
		if err := seedDataDir(caDir, filepath.Join(*dir, n)); err != nil {
			return err
		}
	}

	agents := map[string][]string{ // kubeconfig name -> user, groups...
		"scheduler":          {"system:kube-scheduler"},
		"controller-manager": {"system:kube-controller-manager"},
	}
	for _, n := range splitList(*nodes) {
		agents["node-"+n] = []string{"system:node:" + n, "system:nodes"}
	}
	for file, id := range agents {
		if err := writeKubeconfig(b, filepath.Join(*dir, file+".kubeconfig"), urls, id[0], id[1:]); err != nil {
			return err
		}
	}

	admin := urls
	if *adminServers != "" {
		admin = splitList(*adminServers)
	}
	if *adminPath == "" {
		*adminPath = filepath.Join(*dir, "admin.kubeconfig")
	}
	// The admin kubeconfig is rewritten every time: the addresses the admin
	// reaches the hub on (published ports) may change between runs.
	if err := os.Remove(*adminPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writeKubeconfig(b, *adminPath, admin, "", nil); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cluster credentials in %s; admin kubeconfig %s\n", *dir, *adminPath)
	return nil
}

// parseServers splits name=URL,... into names and URLs.
func parseServers(s string) (names, urls []string, err error) {
	for _, kv := range splitList(s) {
		name, url, ok := strings.Cut(kv, "=")
		if !ok || name == "" || url == "" || strings.ContainsAny(name, "/.") {
			return nil, nil, fmt.Errorf("--servers: %q is not name=URL", kv)
		}
		names, urls = append(names, name), append(urls, url)
	}
	if len(names) == 0 {
		return nil, nil, errors.New("--servers is required")
	}
	return names, urls, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// seedDataDir copies the shared cluster files into a replica's data dir,
// keeping any that are already there.
func seedDataDir(from, to string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	for _, name := range clusterSeedFiles {
		dst := filepath.Join(to, name)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// writeKubeconfig writes a kubeconfig for user (the admin when user is "")
// listing servers, unless path exists.
func writeKubeconfig(b *pki.Bundle, path string, servers []string, user string, groups []string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	var cert, key []byte
	var err error
	name := user
	if user == "" {
		name = pki.AdminUser
		cert, key, err = b.AdminClient()
	} else {
		cert, key, err = b.IssueClient(user, groups)
	}
	if err != nil {
		return err
	}
	out, err := pki.Kubeconfig(servers, b.CAPEM, cert, key, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}
