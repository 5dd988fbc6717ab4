package pki

import (
	"bytes"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

var update = flag.Bool("update", false, "update golden files")

func TestKubeconfig(t *testing.T) {
	t.Parallel()
	b := mustEnsure(t, Config{Dir: t.TempDir()})
	certPEM, keyPEM, err := b.IssueClient("alice", []string{"dev"})
	if err != nil {
		t.Fatal(err)
	}
	servers := []string{"https://10.0.0.1:6443", "https://10.0.0.2:6443"}
	data, err := Kubeconfig(servers, b.CAPEM, certPEM, keyPEM, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiVersion: v1", "kind: Config", "server: " + servers[0], "current-context: capstan"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("kubeconfig lacks %q:\n%s", want, data)
		}
	}

	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatalf("clientcmd.Load: %v", err)
	}
	if cfg.CurrentContext != "capstan" {
		t.Errorf("current-context = %q", cfg.CurrentContext)
	}
	cl := cfg.Clusters["capstan"]
	if cl == nil || cl.Server != servers[0] || !bytes.Equal(cl.CertificateAuthorityData, b.CAPEM) {
		t.Errorf("cluster = %+v", cl)
	}
	u := cfg.AuthInfos["alice"]
	if u == nil || !bytes.Equal(u.ClientCertificateData, certPEM) || !bytes.Equal(u.ClientKeyData, keyPEM) {
		t.Errorf("user = %+v", u)
	}
	ctx := cfg.Contexts["capstan"]
	if ctx == nil || ctx.Cluster != "capstan" || ctx.AuthInfo != "alice" {
		t.Errorf("context = %+v", ctx)
	}
	// kubectl takes one server per cluster: the second gets its own.
	cl2, ctx2 := cfg.Clusters["capstan-2"], cfg.Contexts["capstan-2"]
	if cl2 == nil || cl2.Server != servers[1] || ctx2 == nil || ctx2.Cluster != "capstan-2" || ctx2.AuthInfo != "alice" {
		t.Errorf("second server: cluster = %+v, context = %+v", cl2, ctx2)
	}
}

func TestKubeconfigErrors(t *testing.T) {
	t.Parallel()
	pemData := []byte("pem")
	for _, tc := range []struct {
		name          string
		servers       []string
		ca, cert, key []byte
		user          string
	}{
		{name: "no servers", ca: pemData, cert: pemData, key: pemData, user: "u"},
		{name: "empty server", servers: []string{""}, ca: pemData, cert: pemData, key: pemData, user: "u"},
		{name: "no user", servers: []string{"https://h"}, ca: pemData, cert: pemData, key: pemData},
		{name: "no CA", servers: []string{"https://h"}, cert: pemData, key: pemData, user: "u"},
		{name: "no key", servers: []string{"https://h"}, ca: pemData, cert: pemData, user: "u"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Kubeconfig(tc.servers, tc.ca, tc.cert, tc.key, tc.user); err == nil {
				t.Error("Kubeconfig succeeded")
			}
		})
	}
}

// TestKubeconfigGolden pins the rendered layout. Run with -update to rewrite.
func TestKubeconfigGolden(t *testing.T) {
	t.Parallel()
	got, err := Kubeconfig([]string{"https://127.0.0.1:6443"}, []byte("CA PEM\n"), []byte("CERT PEM\n"), []byte("KEY PEM\n"), AdminUser)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "kubeconfig.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := mustRead(t, golden); !bytes.Equal(got, want) {
		t.Errorf("kubeconfig differs from %s:\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestWriteAdminKubeconfig uses the written kubeconfig through client-go
// against a TLS server presenting the serving certificate and requiring a
// client certificate from the CA.
func TestWriteAdminKubeconfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := mustEnsure(t, Config{Dir: dir})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		subj := r.TLS.PeerCertificates[0].Subject
		fmt.Fprintf(w, "%s %s", subj.CommonName, strings.Join(subj.Organization, ","))
	}))
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{b.ServingCert},
		ClientCAs:    roots(b),
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name   string
		server string
	}{
		{"by IP", srv.URL},
		{"by name", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, err := b.WriteAdminKubeconfig(tc.server)
			if err != nil {
				t.Fatal(err)
			}
			if path != filepath.Join(dir, "admin.kubeconfig") {
				t.Errorf("path = %q", path)
			}
			if got := fileMode(t, path); got != secretMode {
				t.Errorf("mode = %v, want %v", got, secretMode)
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Timeout = 10 * time.Second
			client, err := rest.HTTPClientFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer client.CloseIdleConnections()
			resp, err := client.Get(tc.server)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if want := AdminUser + " " + AdminGroup; string(body) != want {
				t.Errorf("server saw %q, want %q", body, want)
			}
		})
	}
}
