package apiserver

import (
	"errors"
	"fmt"

	"github.com/capstan-io/capstan/auth/authn"
)

// AuthConfig is the security part of Config. Zero values are safe defaults.
type AuthConfig struct {
	// TokenAuthFile is a CSV file of static tokens: token,user,uid[,"group1,group2"].
	TokenAuthFile string
	// ServiceAccountKeyFile is the PEM private key (ECDSA P-256 or RSA) service
	// account tokens are signed with; empty means DataDir/sa.key, created if missing.
	ServiceAccountKeyFile string
	// ServiceAccountIssuer is the iss of service account tokens, and their default audience.
	ServiceAccountIssuer string
	// APIAudiences are the audiences a service account token must name; default the issuer.
	APIAudiences []string
	// OIDC, if OIDC.Issuer is set, accepts JWTs from an external issuer.
	OIDC authn.OIDCConfig
	// AnonymousAuth lets requests without credentials through as system:anonymous
	// (RBAC then decides); otherwise only health and version paths admit them.
	AnonymousAuth bool
	// TLSCertFile and TLSPrivateKeyFile, if set, are the serving certificate,
	// re-read when the files change; otherwise one is issued from the cluster CA.
	TLSCertFile, TLSPrivateKeyFile string
	// InsecurePort, if not 0, serves plain HTTP on 127.0.0.1 only (credentials still required).
	InsecurePort int
	// AuditLogPath, if set, receives one JSON line per request.
	AuditLogPath string
}

const defaultIssuer = "https://kubernetes.default.svc.cluster.local"

func (c *AuthConfig) setDefaults() {
	if c.ServiceAccountIssuer == "" {
		c.ServiceAccountIssuer = defaultIssuer
	}
	if len(c.APIAudiences) == 0 {
		c.APIAudiences = []string{c.ServiceAccountIssuer}
	}
}

func (c *AuthConfig) validate() error {
	var errs []error
	if (c.TLSCertFile == "") != (c.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file go together"))
	}
	if c.InsecurePort < 0 || c.InsecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--insecure-port %d is out of range", c.InsecurePort))
	}
	if o := c.OIDC; (o.Issuer != "" || o.Audience != "" || o.JWKSFile != "") && (o.Issuer == "" || o.Audience == "" || o.JWKSFile == "") {
		errs = append(errs, errors.New("--oidc-issuer, --oidc-audience and --oidc-jwks-file go together"))
	}
	if c.OIDC.Issuer != "" && c.OIDC.Issuer == c.ServiceAccountIssuer {
		errs = append(errs, errors.New("--oidc-issuer must differ from the service account issuer"))
	}
	return errors.Join(errs...)
}
