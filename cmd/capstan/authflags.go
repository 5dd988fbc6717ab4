package main

import (
	"flag"
	"strings"

	"github.com/capstan-io/capstan/apiserver"
)

// addAuthFlags binds the authentication, authorization, TLS and audit flags to c.
func addAuthFlags(fs *flag.FlagSet, c *apiserver.AuthConfig) {
	fs.StringVar(&c.TokenAuthFile, "token-auth-file", "", `CSV file of static bearer tokens: token,user,uid[,"group1,group2"]`)
	fs.StringVar(&c.ServiceAccountKeyFile, "service-account-key-file", "", "PEM private key (ECDSA P-256 or RSA) that signs service account tokens; default <data-dir>/sa.key, generated if missing")
	fs.StringVar(&c.ServiceAccountIssuer, "service-account-issuer", "", "iss claim of service account tokens (default https://kubernetes.default.svc.cluster.local)")
	fs.Func("api-audiences", "comma-separated audiences a service account token must name (default: the issuer)", func(v string) error {
		c.APIAudiences = strings.Split(v, ",")
		return nil
	})
	fs.StringVar(&c.OIDC.Issuer, "oidc-issuer", "", "issuer (iss) of accepted external JWTs")
	fs.StringVar(&c.OIDC.Audience, "oidc-audience", "", "audience (aud) external JWTs must name")
	fs.StringVar(&c.OIDC.JWKSFile, "oidc-jwks-file", "", "JWKS file with the external issuer's public keys")
	fs.StringVar(&c.OIDC.UsernameClaim, "oidc-username-claim", "sub", "claim holding the user name")
	fs.StringVar(&c.OIDC.UsernamePrefix, "oidc-username-prefix", "", "prefix added to OIDC user names")
	fs.StringVar(&c.OIDC.GroupsClaim, "oidc-groups-claim", "", "claim holding the user's groups")
	fs.StringVar(&c.OIDC.GroupsPrefix, "oidc-groups-prefix", "", "prefix added to OIDC group names")
	fs.BoolVar(&c.AnonymousAuth, "anonymous-auth", false, "let requests without credentials through as system:anonymous (RBAC decides); otherwise only /healthz /livez /readyz /version")
	fs.StringVar(&c.TLSCertFile, "tls-cert-file", "", "serving certificate (PEM), re-read when it changes; default: issued from the cluster CA")
	fs.StringVar(&c.TLSPrivateKeyFile, "tls-private-key-file", "", "key of --tls-cert-file")
	fs.IntVar(&c.InsecurePort, "insecure-port", 0, "if set, also serve plain HTTP on 127.0.0.1 at this port (credentials still required)")
	fs.StringVar(&c.AuditLogPath, "audit-log-path", "", "file receiving one JSON line per request (never bodies)")
}
