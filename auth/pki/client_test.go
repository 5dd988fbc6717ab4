package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestIssueClient(t *testing.T) {
	t.Parallel()
	b := mustEnsure(t, Config{Dir: t.TempDir()})
	for _, tc := range []struct {
		name    string
		user    string
		groups  []string
		wantErr bool
	}{
		{name: "groups", user: "alice", groups: []string{"system:masters", "dev"}},
		{name: "no groups", user: "system:node:n1"},
		{name: "no user", groups: []string{"dev"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			certPEM, keyPEM, err := b.IssueClient(tc.user, tc.groups)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
				t.Fatalf("cert and key do not pair: %v", err)
			}
			cert := mustParseCert(t, certPEM)
			if _, err := cert.Verify(x509.VerifyOptions{
				Roots:     roots(b),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
			}); err != nil {
				t.Errorf("verify as client: %v", err)
			}
			if _, err := cert.Verify(x509.VerifyOptions{
				Roots:     roots(b),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			}); err == nil {
				t.Error("client certificate verifies for server auth")
			}
			// O is a DER SET, so group order is not preserved.
			if cert.Subject.CommonName != tc.user || !slices.Equal(cert.Subject.Organization, slices.Sorted(slices.Values(tc.groups))) {
				t.Errorf("subject = CN %q O %q, want CN %q O %q",
					cert.Subject.CommonName, cert.Subject.Organization, tc.user, tc.groups)
			}
			if got := cert.NotAfter.Sub(time.Now()); got < leafValidity-time.Hour || got > leafValidity {
				t.Errorf("valid for %v, want about %v", got, leafValidity)
			}
		})
	}
}

func TestAdminClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := mustEnsure(t, Config{Dir: dir})

	// Concurrent first calls must agree on one pair.
	const n = 8
	var (
		wg    sync.WaitGroup
		certs [n][]byte
		errs  [n]error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			certs[i], _, errs[i] = b.AdminClient()
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(certs[i], certs[0]) {
			t.Fatal("concurrent AdminClient calls returned different certificates")
		}
	}

	certPEM, keyPEM, err := b.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	cert := mustParseCert(t, certPEM)
	if cert.Subject.CommonName != AdminUser || !slices.Equal(cert.Subject.Organization, []string{AdminGroup}) {
		t.Errorf("subject = %v", cert.Subject)
	}
	if got := fileMode(t, filepath.Join(dir, adminKeyFile)); got != secretMode {
		t.Errorf("admin.key mode = %v, want %v", got, secretMode)
	}
	if !bytes.Equal(mustRead(t, filepath.Join(dir, adminCertFile)), certPEM) ||
		!bytes.Equal(mustRead(t, filepath.Join(dir, adminKeyFile)), keyPEM) {
		t.Error("admin.crt/admin.key differ from returned PEM")
	}

	// A new process (a new Bundle) reuses the stored pair.
	again, _, err := mustEnsure(t, Config{Dir: dir}).AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, certPEM) {
		t.Error("AdminClient re-issued on a fresh Bundle")
	}

	// A stored pair with the wrong identity is replaced.
	bobCert, bobKey, err := b.IssueClient("bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, adminCertFile), bobCert)
	mustWrite(t, filepath.Join(dir, adminKeyFile), bobKey)
	fixed, _, err := b.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	if cn := mustParseCert(t, fixed).Subject.CommonName; cn != AdminUser {
		t.Errorf("CN after repair = %q, want %q", cn, AdminUser)
	}
}
