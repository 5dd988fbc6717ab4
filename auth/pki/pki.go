package pki

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Bundle is the cluster's TLS material, loaded or created in Dir.
type Bundle struct {
	// Dir is the data directory the material lives in.
	Dir string
	// CACert is the cluster CA certificate.
	CACert *x509.Certificate
	// CAKey is the CA's private key.
	CAKey crypto.Signer
	// CAPEM is the PEM encoding of CACert, as stored in ca.crt.
	CAPEM []byte
	// ServingCert is the API server's certificate and key; Leaf is set.
	ServingCert tls.Certificate
	// AdminToken is a random 32-byte hex token, stored in Dir/admin.token
	// (0600).
	AdminToken string

	mu sync.Mutex // serialises creation of admin.crt/admin.key
}

// Config says where the TLS material lives and what the serving certificate
// must cover.
type Config struct {
	// Dir is the data directory, created 0700 if missing.
	Dir string
	// Hosts are extra SANs for the serving certificate: DNS names or IP
	// addresses. "localhost", "127.0.0.1", "::1" and os.Hostname() are
	// always added.
	Hosts []string
}

// Ensure loads ca.crt/ca.key, serving.crt/serving.key and admin.token from
// cfg.Dir, creating what is missing.
//
// If the existing serving certificate lacks any requested SAN, has less than
// 30 days left, or was not signed by the CA, it is re-issued with exactly the
// requested SANs; the CA is kept. An existing CA that is unreadable, expired or
// does not match its key is an error. The admin client certificate is created
// lazily by AdminClient.
func Ensure(cfg Config) (*Bundle, error) {
	if cfg.Dir == "" {
		return nil, errors.New("pki: Config.Dir is required")
	}
	hosts, err := servingHosts(cfg.Hosts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, dirMode); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	now := time.Now()
	caCert, caKey, caPEM, err := loadOrCreateCA(cfg.Dir, now)
	if err != nil {
		return nil, err
	}
	serving, err := loadOrIssueServing(cfg.Dir, caCert, caKey, hosts, now)
	if err != nil {
		return nil, err
	}
	token, err := loadOrCreateToken(filepath.Join(cfg.Dir, adminTokenFile))
	if err != nil {
		return nil, err
	}
	return &Bundle{
		Dir:         cfg.Dir,
		CACert:      caCert,
		CAKey:       caKey,
		CAPEM:       caPEM,
		ServingCert: serving,
		AdminToken:  token,
	}, nil
}
