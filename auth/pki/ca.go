package pki

import (
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

const caCommonName = "capstan-ca"

// loadOrCreateCA loads ca.crt/ca.key from dir, or creates a new CA if ca.crt
// does not exist. An existing CA that cannot be used is an error: replacing it
// would silently invalidate every credential issued from it.
func loadOrCreateCA(dir string, now time.Time) (*x509.Certificate, crypto.Signer, []byte, error) {
	certPath, keyPath := filepath.Join(dir, caCertFile), filepath.Join(dir, caKeyFile)
	certPEM, err := os.ReadFile(certPath)
	if errors.Is(err, fs.ErrNotExist) {
		return createCA(certPath, keyPath, now)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading CA certificate: %w", err)
	}
	cert, err := parseCert(certPEM)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("loading %s: %w", certPath, err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading CA key: %w", err)
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("loading %s: %w", keyPath, err)
	}
	switch {
	case !keyMatches(cert, key):
		return nil, nil, nil, fmt.Errorf("pki: %s does not match %s", keyPath, certPath)
	case !cert.IsCA:
		return nil, nil, nil, fmt.Errorf("pki: %s is not a CA certificate", certPath)
	case now.After(cert.NotAfter):
		return nil, nil, nil, fmt.Errorf("pki: CA certificate %s expired at %s", certPath, cert.NotAfter.Format(time.RFC3339))
	}
	return cert, key, certPEM, nil
}

func createCA(certPath, keyPath string, now time.Time) (*x509.Certificate, crypto.Signer, []byte, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: caCommonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// The CA signs only leaves, never intermediates.
		MaxPathLenZero: true,
	}
	cert, der, err := sign(tmpl, nil, key.Public(), key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("creating CA: %w", err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	certPEM := encodeCert(der)
	if err := writePair(certPath, keyPath, certPEM, keyPEM); err != nil {
		return nil, nil, nil, fmt.Errorf("writing CA: %w", err)
	}
	return cert, key, certPEM, nil
}
