// Package authn turns a request's credentials into an auth.User. A Chain tries
// x509 client certificates, then bearer tokens (static token file, service
// account JWTs this server signs, external OIDC-style JWTs); the first that
// recognises the credential decides. A credential that is presented but
// invalid is an error, which the HTTP edge turns into 401. Authenticators are
// safe for concurrent use once built.
package authn
