package authn

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/capstan-io/capstan/auth"
)

// ErrInvalid marks a credential that was presented but is not valid.
var ErrInvalid = errors.New("authn: invalid credential")

// Authenticator finds the user a request is from. ok is false, with a nil
// error, when the request carries no credential of the kind it handles.
type Authenticator interface {
	Authenticate(r *http.Request) (u auth.User, ok bool, err error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (auth.User, bool, error)

// Authenticate calls f.
func (f AuthenticatorFunc) Authenticate(r *http.Request) (auth.User, bool, error) { return f(r) }

// TokenAuthenticator checks a bearer token. ok is false, with a nil error,
// when the token is not one it issues (a JWT from another issuer, say).
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string) (u auth.User, ok bool, err error)
}

// TokenAuthenticatorFunc adapts a function to TokenAuthenticator.
type TokenAuthenticatorFunc func(ctx context.Context, token string) (auth.User, bool, error)

// AuthenticateToken calls f.
func (f TokenAuthenticatorFunc) AuthenticateToken(ctx context.Context, token string) (auth.User, bool, error) {
	return f(ctx, token)
}

// Chain tries each authenticator in order; the first that recognises a
// credential decides. Every authenticated user is put in system:authenticated.
type Chain []Authenticator

var _ Authenticator = Chain(nil)

// Authenticate runs the chain. With no credential at all it returns ok false.
func (c Chain) Authenticate(r *http.Request) (auth.User, bool, error) {
	var errs []error
	for _, a := range c {
		u, ok, err := a.Authenticate(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			if !slices.Contains(u.Groups, auth.GroupAuthenticated) {
				u.Groups = append(slices.Clip(u.Groups), auth.GroupAuthenticated)
			}
			return u, true, nil
		}
	}
	return auth.User{}, false, errors.Join(errs...)
}

// Tokens checks the request's bearer token with each token authenticator in
// turn. A token none of them recognises is invalid.
type Tokens []TokenAuthenticator

var (
	_ Authenticator      = Tokens(nil)
	_ TokenAuthenticator = Tokens(nil)
)

// Authenticate reads "Authorization: Bearer <token>".
func (ts Tokens) Authenticate(r *http.Request) (auth.User, bool, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return auth.User{}, false, nil
	}
	scheme, token, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return auth.User{}, false, nil
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return auth.User{}, false, nil
	}
	return ts.AuthenticateToken(r.Context(), token)
}

// AuthenticateToken checks token with each authenticator in order.
func (ts Tokens) AuthenticateToken(ctx context.Context, token string) (auth.User, bool, error) {
	for _, t := range ts {
		u, ok, err := t.AuthenticateToken(ctx, token)
		if err != nil {
			return auth.User{}, false, err
		}
		if ok {
			return u, true, nil
		}
	}
	return auth.User{}, false, ErrInvalid
}
