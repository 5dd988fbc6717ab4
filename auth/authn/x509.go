package authn

import (
	"net/http"
	"slices"

	"github.com/capstan-io/capstan/auth"
)

// X509 authenticates a client certificate verified against the cluster CA
// during the TLS handshake: CN is the user, O the groups. The TLS config must
// verify client certificates (tls.VerifyClientCertIfGiven with ClientCAs).
type X509 struct{}

var _ Authenticator = X509{}

// Authenticate reads the verified chain of r's TLS connection.
func (X509) Authenticate(r *http.Request) (auth.User, bool, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return auth.User{}, false, nil
	}
	c := r.TLS.VerifiedChains[0][0]
	if c.Subject.CommonName == "" {
		return auth.User{}, false, ErrInvalid
	}
	return auth.User{Name: c.Subject.CommonName, Groups: slices.Clone(c.Subject.Organization)}, true, nil
}
