package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// Identity of the admin client certificate. Kubernetes-style authorizers
// grant the system:masters group full access.
const (
	AdminUser  = "capstan-admin"
	AdminGroup = "system:masters"
)

// IssueClient signs a client certificate with CN=user and O=groups (valid 1
// year, ExtKeyUsageClientAuth), returning PEM cert and PEM key. Nothing is
// written to disk. O is encoded as a DER SET, so the order of groups is not
// preserved.
func (b *Bundle) IssueClient(user string, groups []string) (certPEM, keyPEM []byte, err error) {
	if user == "" {
		return nil, nil, errors.New("pki: client certificate needs a user name")
	}
	now := time.Now()
	certPEM, keyPEM, err = issueLeaf(b.CACert, b.CAKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: slices.Clone(groups)},
		NotBefore:   now.Add(-backdate),
		NotAfter:    now.Add(leafValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("issuing client certificate for %q: %w", user, err)
	}
	return certPEM, keyPEM, nil
}

// AdminClient returns the admin client cert (CN "capstan-admin", O
// "system:masters"), creating admin.crt/admin.key in Dir on first call and
// reusing them after. A stored pair that is unusable (wrong CA, wrong
// identity, or less than 30 days left) is re-issued.
func (b *Bundle) AdminClient() (certPEM, keyPEM []byte, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()

	certPath, keyPath := filepath.Join(b.Dir, adminCertFile), filepath.Join(b.Dir, adminKeyFile)
	certPEM, keyPEM, ok, err := readPair(certPath, keyPath)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		pair, ok := usableLeaf(certPEM, keyPEM, b.CACert, x509.ExtKeyUsageClientAuth, time.Now())
		if ok && pair.Leaf.Subject.CommonName == AdminUser &&
			slices.Equal(pair.Leaf.Subject.Organization, []string{AdminGroup}) {
			return certPEM, keyPEM, nil
		}
	}
	certPEM, keyPEM, err = b.IssueClient(AdminUser, []string{AdminGroup})
	if err != nil {
		return nil, nil, err
	}
	if err := writePair(certPath, keyPath, certPEM, keyPEM); err != nil {
		return nil, nil, fmt.Errorf("writing admin client certificate: %w", err)
	}
	return certPEM, keyPEM, nil
}
