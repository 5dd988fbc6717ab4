package pki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustEnsure(t testing.TB, cfg Config) *Bundle {
	t.Helper()
	b, err := Ensure(cfg)
	if err != nil {
		t.Fatalf("Ensure(%+v): %v", cfg, err)
	}
	return b
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustWrite(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustParseCert(t testing.TB, data []byte) *x509.Certificate {
	t.Helper()
	cert, err := parseCert(data)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func roots(b *Bundle) *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(b.CACert)
	return pool
}

func fileMode(t testing.TB, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestEnsureCreatesFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data", "pki")
	b := mustEnsure(t, Config{Dir: dir})

	if got := fileMode(t, dir); got != dirMode {
		t.Errorf("dir mode = %v, want %v", got, dirMode)
	}
	for _, tc := range []struct {
		name string
		mode fs.FileMode
	}{
		{caCertFile, certMode},
		{caKeyFile, secretMode},
		{servingCertFile, certMode},
		{servingKeyFile, secretMode},
		{adminTokenFile, secretMode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fileMode(t, filepath.Join(dir, tc.name)); got != tc.mode {
				t.Errorf("mode = %v, want %v", got, tc.mode)
			}
		})
	}
	// The admin client certificate is created lazily.
	if _, err := os.Stat(filepath.Join(dir, adminCertFile)); !os.IsNotExist(err) {
		t.Errorf("admin.crt exists before AdminClient: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}

	if tok := mustRead(t, filepath.Join(dir, adminTokenFile)); string(tok) != b.AdminToken {
		t.Errorf("admin.token = %q, Bundle.AdminToken = %q", tok, b.AdminToken)
	}
	if raw, err := hex.DecodeString(b.AdminToken); err != nil || len(raw) != 32 {
		t.Errorf("AdminToken %q is not 32 bytes of hex (err %v)", b.AdminToken, err)
	}
	if !bytes.Equal(b.CAPEM, mustRead(t, filepath.Join(dir, caCertFile))) {
		t.Error("CAPEM differs from ca.crt")
	}

	ca := b.CACert
	if ca.Subject.CommonName != caCommonName || !ca.IsCA ||
		ca.KeyUsage != x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature {
		t.Errorf("CA: CN %q IsCA %v KeyUsage %v", ca.Subject.CommonName, ca.IsCA, ca.KeyUsage)
	}
	if err := ca.CheckSignatureFrom(ca); err != nil {
		t.Errorf("CA is not self-signed: %v", err)
	}
	leaf := b.ServingCert.Leaf
	if leaf.Subject.CommonName != servingCommonName ||
		!slices.Equal(leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) {
		t.Errorf("serving: CN %q ExtKeyUsage %v", leaf.Subject.CommonName, leaf.ExtKeyUsage)
	}
	for _, tc := range []struct {
		name     string
		cert     *x509.Certificate
		validity time.Duration
	}{
		{"ca", ca, caValidity},
		{"serving", leaf, leafValidity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cert.NotAfter.Sub(tc.cert.NotBefore); got < tc.validity || got > tc.validity+time.Hour {
				t.Errorf("validity = %v, want %v", got, tc.validity)
			}
			if s := tc.cert.SerialNumber; s.Sign() <= 0 || s.BitLen() > 128 {
				t.Errorf("serial %v is not a positive 128-bit number", s)
			}
			pub, ok := tc.cert.PublicKey.(*ecdsa.PublicKey)
			if !ok || pub.Curve != elliptic.P256() {
				t.Errorf("public key is %T, want ECDSA P-256", tc.cert.PublicKey)
			}
		})
	}
}

func TestEnsureReusesExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mustEnsure(t, Config{Dir: dir, Hosts: []string{"api.example.com"}})
	servingKey := mustRead(t, filepath.Join(dir, servingKeyFile))

	second := mustEnsure(t, Config{Dir: dir, Hosts: []string{"api.example.com"}})
	if !bytes.Equal(first.CAPEM, second.CAPEM) || !bytes.Equal(first.CACert.Raw, second.CACert.Raw) {
		t.Error("CA changed on second Ensure")
	}
	if first.AdminToken != second.AdminToken {
		t.Errorf("token changed: %q -> %q", first.AdminToken, second.AdminToken)
	}
	if !bytes.Equal(first.ServingCert.Certificate[0], second.ServingCert.Certificate[0]) {
		t.Error("serving certificate re-issued on second Ensure")
	}
	if !bytes.Equal(servingKey, mustRead(t, filepath.Join(dir, servingKeyFile))) {
		t.Error("serving key rewritten on second Ensure")
	}
}

func TestEnsureServingReissue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// setup changes dir after the first Ensure and returns the
		// Config for the second.
		setup       func(t *testing.T, dir string) Config
		wantReissue bool
	}{
		{
			name:  "same hosts",
			setup: func(t *testing.T, dir string) Config { return Config{Dir: dir} },
		},
		{
			name: "default hosts respelled",
			setup: func(t *testing.T, dir string) Config {
				return Config{Dir: dir, Hosts: []string{" LOCALHOST ", "127.0.0.1", "0:0:0:0:0:0:0:1", ""}}
			},
		},
		{
			name: "added DNS name",
			setup: func(t *testing.T, dir string) Config {
				return Config{Dir: dir, Hosts: []string{"api.example.com"}}
			},
			wantReissue: true,
		},
		{
			name: "added IP",
			setup: func(t *testing.T, dir string) Config {
				return Config{Dir: dir, Hosts: []string{"10.1.2.3"}}
			},
			wantReissue: true,
		},
		{
			name: "expiring within 30 days",
			setup: func(t *testing.T, dir string) Config {
				b := mustEnsure(t, Config{Dir: dir})
				dns, ips := splitHosts(mustHosts(t, nil))
				now := time.Now()
				certPEM, keyPEM, err := issueLeaf(b.CACert, b.CAKey, &x509.Certificate{
					Subject:     pkix.Name{CommonName: servingCommonName},
					NotBefore:   now.Add(-time.Hour),
					NotAfter:    now.Add(10 * 24 * time.Hour),
					ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
					DNSNames:    dns,
					IPAddresses: ips,
				})
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, filepath.Join(dir, servingCertFile), certPEM)
				mustWrite(t, filepath.Join(dir, servingKeyFile), keyPEM)
				return Config{Dir: dir}
			},
			wantReissue: true,
		},
		{
			name: "signed by another CA",
			setup: func(t *testing.T, dir string) Config {
				other := t.TempDir()
				mustEnsure(t, Config{Dir: other})
				for _, f := range []string{servingCertFile, servingKeyFile} {
					mustWrite(t, filepath.Join(dir, f), mustRead(t, filepath.Join(other, f)))
				}
				return Config{Dir: dir}
			},
			wantReissue: true,
		},
		{
			name: "corrupt key",
			setup: func(t *testing.T, dir string) Config {
				mustWrite(t, filepath.Join(dir, servingKeyFile), []byte("garbage"))
				return Config{Dir: dir}
			},
			wantReissue: true,
		},
		{
			name: "missing certificate",
			setup: func(t *testing.T, dir string) Config {
				if err := os.Remove(filepath.Join(dir, servingCertFile)); err != nil {
					t.Fatal(err)
				}
				return Config{Dir: dir}
			},
			wantReissue: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first := mustEnsure(t, Config{Dir: dir})
			cfg := tc.setup(t, dir)
			second := mustEnsure(t, cfg)

			if !bytes.Equal(first.CAPEM, second.CAPEM) {
				t.Fatal("CA changed")
			}
			reissued := !bytes.Equal(first.ServingCert.Certificate[0], second.ServingCert.Certificate[0])
			if reissued != tc.wantReissue {
				t.Errorf("re-issued = %v, want %v", reissued, tc.wantReissue)
			}
			onDisk := mustParseCert(t, mustRead(t, filepath.Join(dir, servingCertFile)))
			if !bytes.Equal(onDisk.Raw, second.ServingCert.Certificate[0]) {
				t.Error("serving.crt on disk differs from Bundle.ServingCert")
			}
			if got := fileMode(t, filepath.Join(dir, servingKeyFile)); tc.wantReissue && got != secretMode {
				t.Errorf("serving.key mode = %v, want %v", got, secretMode)
			}
			for _, h := range mustHosts(t, cfg.Hosts) {
				if _, err := second.ServingCert.Leaf.Verify(x509.VerifyOptions{
					DNSName:   h,
					Roots:     roots(second),
					KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
				}); err != nil {
					t.Errorf("verify %q: %v", h, err)
				}
			}
		})
	}
}

func mustHosts(t *testing.T, extra []string) []string {
	t.Helper()
	hosts, err := servingHosts(extra)
	if err != nil {
		t.Fatal(err)
	}
	return hosts
}

func TestServingCertVerifies(t *testing.T) {
	t.Parallel()
	b := mustEnsure(t, Config{Dir: t.TempDir(), Hosts: []string{"api.example.com", "10.0.0.5", "2001:db8::1"}})
	hostname, _ := os.Hostname()
	for _, tc := range []struct {
		host    string
		wantErr bool
	}{
		{host: "localhost"},
		{host: "127.0.0.1"},
		{host: "::1"},
		{host: "api.example.com"},
		{host: "API.Example.com"},
		{host: "10.0.0.5"},
		{host: "2001:db8::1"},
		{host: hostname},
		{host: "example.org", wantErr: true},
		{host: "10.0.0.6", wantErr: true},
	} {
		t.Run(tc.host, func(t *testing.T) {
			if tc.host == "" {
				t.Skip("no hostname")
			}
			_, err := b.ServingCert.Leaf.Verify(x509.VerifyOptions{
				DNSName:   tc.host,
				Roots:     roots(b),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			if (err != nil) != tc.wantErr {
				t.Errorf("Verify err = %v, wantErr %v", err, tc.wantErr)
			}
		})
	}
}

func TestEnsureErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) Config
	}{
		{"no dir", func(t *testing.T) Config { return Config{} }},
		{"host is a URL", func(t *testing.T) Config {
			return Config{Dir: t.TempDir(), Hosts: []string{"https://api.example.com"}}
		}},
		{"host with port", func(t *testing.T) Config {
			return Config{Dir: t.TempDir(), Hosts: []string{"api.example.com:6443"}}
		}},
		{"dir is a file", func(t *testing.T) Config {
			path := filepath.Join(t.TempDir(), "file")
			mustWrite(t, path, nil)
			return Config{Dir: path}
		}},
		{"CA key missing", func(t *testing.T) Config {
			dir := t.TempDir()
			mustEnsure(t, Config{Dir: dir})
			if err := os.Remove(filepath.Join(dir, caKeyFile)); err != nil {
				t.Fatal(err)
			}
			return Config{Dir: dir}
		}},
		{"CA key from another CA", func(t *testing.T) Config {
			dir, other := t.TempDir(), t.TempDir()
			mustEnsure(t, Config{Dir: dir})
			mustEnsure(t, Config{Dir: other})
			mustWrite(t, filepath.Join(dir, caKeyFile), mustRead(t, filepath.Join(other, caKeyFile)))
			return Config{Dir: dir}
		}},
		{"CA certificate corrupt", func(t *testing.T) Config {
			dir := t.TempDir()
			mustEnsure(t, Config{Dir: dir})
			mustWrite(t, filepath.Join(dir, caCertFile), []byte("not PEM"))
			return Config{Dir: dir}
		}},
		{"CA certificate is a leaf", func(t *testing.T) Config {
			dir := t.TempDir()
			mustEnsure(t, Config{Dir: dir})
			for from, to := range map[string]string{servingCertFile: caCertFile, servingKeyFile: caKeyFile} {
				mustWrite(t, filepath.Join(dir, to), mustRead(t, filepath.Join(dir, from)))
			}
			return Config{Dir: dir}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.setup(t)
			var before []byte
			if cfg.Dir != "" {
				before, _ = os.ReadFile(filepath.Join(cfg.Dir, caCertFile))
			}
			if b, err := Ensure(cfg); err == nil {
				t.Fatalf("Ensure succeeded: %+v", b)
			}
			if before != nil && !bytes.Equal(before, mustRead(t, filepath.Join(cfg.Dir, caCertFile))) {
				t.Error("failed Ensure replaced ca.crt")
			}
		})
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	ec, err := newKey()
	if err != nil {
		t.Fatal(err)
	}
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := encodeKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		want    crypto.PublicKey
		wantErr bool
	}{
		{name: "PKCS8", data: pkcs8, want: ec.Public()},
		{name: "SEC1", data: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), want: ec.Public()},
		{name: "PKCS1 RSA", data: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), want: rsaKey.Public()},
		{name: "after a certificate", data: append(encodeCert([]byte{1}), pkcs8...), want: ec.Public()},
		{name: "no key", data: encodeCert([]byte{1}), wantErr: true},
		{name: "corrupt", data: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2}}), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			key, err := parseKey(tc.data)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err == nil && !key.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(tc.want) {
				t.Error("parsed key does not match")
			}
		})
	}
}

// TestEnsureLoadsSEC1CA checks that a CA key in "EC PRIVATE KEY" form, as
// written by other tools, is loaded and kept.
func TestEnsureLoadsSEC1CA(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mustEnsure(t, Config{Dir: dir})
	sec1, err := x509.MarshalECPrivateKey(first.CAKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, caKeyFile), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}))
	second := mustEnsure(t, Config{Dir: dir})
	if !bytes.Equal(first.CAPEM, second.CAPEM) {
		t.Error("CA changed")
	}
}

func BenchmarkEnsure(b *testing.B) {
	b.Run("fresh", func(b *testing.B) {
		root := b.TempDir()
		for i := 0; b.Loop(); i++ {
			if _, err := Ensure(Config{Dir: filepath.Join(root, fmt.Sprint(i))}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("existing", func(b *testing.B) {
		dir := b.TempDir()
		mustEnsure(b, Config{Dir: dir})
		for b.Loop() {
			if _, err := Ensure(Config{Dir: dir}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
