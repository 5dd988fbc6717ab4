package pki

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"path/filepath"
	"time"
)

const servingCommonName = "capstan-apiserver"

// loadOrIssueServing returns the serving certificate in dir if it is usable
// and covers hosts; otherwise it issues a new one from the CA and writes it.
func loadOrIssueServing(dir string, ca *x509.Certificate, caKey crypto.Signer, hosts []string, now time.Time) (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(dir, servingCertFile), filepath.Join(dir, servingKeyFile)
	certPEM, keyPEM, ok, err := readPair(certPath, keyPath)
	if err != nil {
		return tls.Certificate{}, err
	}
	if ok {
		if pair, ok := usableLeaf(certPEM, keyPEM, ca, x509.ExtKeyUsageServerAuth, now); ok && coversAll(pair.Leaf, hosts) {
			return pair, nil
		}
	}

	dns, ips := splitHosts(hosts)
	certPEM, keyPEM, err = issueLeaf(ca, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: servingCommonName},
		NotBefore:   now.Add(-backdate),
		NotAfter:    now.Add(leafValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    dns,
		IPAddresses: ips,
	})
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("issuing serving certificate: %w", err)
	}
	if err := writePair(certPath, keyPath, certPEM, keyPEM); err != nil {
		return tls.Certificate{}, fmt.Errorf("writing serving certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("loading issued serving certificate: %w", err)
	}
	if pair.Leaf == nil {
		if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return tls.Certificate{}, fmt.Errorf("parsing issued serving certificate: %w", err)
		}
	}
	return pair, nil
}

func coversAll(cert *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if !hasSAN(cert, h) {
			return false
		}
	}
	return true
}
