package authn

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/capstan-io/capstan/auth"
)

// X509 authenticates a client certificate signed by Roots (the cluster CA):
// CN is the user, O the groups. The TLS config only requests client
// certificates (tls.RequestClientCert); verification happens here, so a
// certificate from another CA, or an expired one, is a 401 rather than a failed handshake.
type X509 struct {
	Roots *x509.CertPool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var _ Authenticator = X509{}

// Authenticate verifies the certificate r's TLS connection presented.
func (a X509) Authenticate(r *http.Request) (auth.User, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return auth.User{}, false, nil
	}
	leaf := r.TLS.PeerCertificates[0]
	opts := x509.VerifyOptions{Roots: a.Roots, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if a.Now != nil {
		opts.CurrentTime = a.Now()
	}
	for _, c := range r.TLS.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	if a.Roots == nil {
		return auth.User{}, false, fmt.Errorf("%w: no client CA configured", ErrInvalid)
	}
	if _, err := leaf.Verify(opts); err != nil {
		return auth.User{}, false, fmt.Errorf("%w: client certificate: %w", ErrInvalid, err)
	}
	if leaf.Subject.CommonName == "" {
		return auth.User{}, false, fmt.Errorf("%w: client certificate: %w", ErrInvalid, errors.New("no common name"))
	}
	return auth.User{Name: leaf.Subject.CommonName, Groups: slices.Clone(leaf.Subject.Organization)}, true, nil
}
