package framework

import (
	"testing"

	"github.com/capstan-io/capstan/apiserver/client"
)

// AdminClient is a project client with the server's admin kubeconfig.
func (s *Server) AdminClient(t testing.TB) *client.Client {
	t.Helper()
	cfg, err := client.LoadKubeconfig(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}
