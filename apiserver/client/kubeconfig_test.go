package client_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/auth/pki"
)

func TestLoadKubeconfig(t *testing.T) {
	hub := apiservertest.Start(t)
	b := hub.PKI()
	cert, key, err := b.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	out, err := pki.Kubeconfig([]string{hub.URL()}, b.CAPEM, cert, key, pki.AdminUser)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := client.LoadKubeconfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Resource("", "v1", "namespaces").Get(context.Background(), "default"); err != nil {
		t.Fatalf("request with kubeconfig credentials: %v", err)
	}
	if _, err := client.LoadKubeconfig(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file: want error")
	}
}
