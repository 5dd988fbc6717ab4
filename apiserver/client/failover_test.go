package client_test

import (
	"context"
	"net"
	"testing"

	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

func TestFailover(t *testing.T) {
	hub := apiservertest.Start(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "https://" + l.Addr().String()
	l.Close() // nothing listens there now: dials are refused
	cli, err := client.New(client.Config{Server: dead, FallbackServers: []string{hub.URL()}, CAData: hub.PKI().CAPEM, Token: hub.Token})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Resource("", "v1", "namespaces").Get(context.Background(), "default"); err != nil {
		t.Fatalf("request did not fail over: %v", err)
	}
	if cli.Server() != hub.URL() {
		t.Fatalf("Server() = %q, want the fallback %q to stay current", cli.Server(), hub.URL())
	}
}
