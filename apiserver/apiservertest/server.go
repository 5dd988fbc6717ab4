package apiservertest

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/storage/etcd3"
	"github.com/capstan-io/capstan/storage/storagetest"
)

// Server is a running hub with its etcd.
type Server struct {
	*apiserver.Server
	// Etcd is the member the hub stores into; tests may Close it to simulate an outage.
	Etcd *etcd3.Embedded
	// Client is an admin client (bearer token).
	Client *client.Client
	// Token is the admin bearer token.
	Token string
}

// Start runs a hub for the rest of the test. mutate, if given, adjusts the config first.
func Start(t testing.TB, mutate ...func(*apiserver.Config)) *Server {
	t.Helper()
	e, endpoint := storagetest.RunEtcdMember(t)
	cfg := apiserver.Config{
		DataDir:            t.TempDir(),
		BindAddress:        "127.0.0.1",
		EtcdServers:        []string{endpoint},
		EtcdRequestTimeout: 2 * time.Second,
		ShutdownTimeout:    2 * time.Second,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("CAPSTAN_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := apiserver.New(cfg, log)
	if err != nil {
		t.Fatalf("apiserver.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("server exited with %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("server did not stop within 20s")
		}
	})
	select {
	case <-srv.Ready():
	case err := <-errc:
		t.Fatalf("server failed to start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server not ready within 30s")
	}
	b := srv.PKI()
	cli, err := client.New(client.Config{Server: srv.URL(), CAData: b.CAPEM, Token: b.AdminToken, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return &Server{Server: srv, Etcd: e, Client: cli, Token: b.AdminToken}
}
