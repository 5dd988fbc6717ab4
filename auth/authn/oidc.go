package authn

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/capstan-io/capstan/auth"
)

// OIDCConfig describes an external issuer whose JWTs are accepted. Keys come
// from a local JWKS file; nothing is fetched over the network.
type OIDCConfig struct {
	Issuer, Audience string
	// JWKSFile is a JSON Web Key Set with the issuer's public keys (RSA or EC P-256).
	JWKSFile string
	// UsernameClaim defaults to "sub"; UsernamePrefix is prepended to it.
	UsernameClaim, UsernamePrefix string
	// GroupsClaim, if set, names a string or string-array claim; GroupsPrefix is prepended to each.
	GroupsClaim, GroupsPrefix string
}

// OIDC authenticates JWTs from an external issuer.
type OIDC struct {
	cfg  OIDCConfig
	keys jwt.VerificationKeySet
	now  func() time.Time
}

var _ TokenAuthenticator = (*OIDC)(nil)

// NewOIDC loads cfg's key set.
func NewOIDC(cfg OIDCConfig) (*OIDC, error) {
	if cfg.Issuer == "" || cfg.Audience == "" || cfg.JWKSFile == "" {
		return nil, errors.New("authn: --oidc-issuer, --oidc-audience and --oidc-jwks-file go together")
	}
	if cfg.UsernameClaim == "" {
		cfg.UsernameClaim = "sub"
	}
	data, err := os.ReadFile(cfg.JWKSFile)
	if err != nil {
		return nil, fmt.Errorf("reading JWKS: %w", err)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return nil, err
	}
	return &OIDC{cfg: cfg, keys: keys, now: time.Now}, nil
}

// AuthenticateToken accepts a JWT from cfg.Issuer for cfg.Audience.
func (o *OIDC) AuthenticateToken(_ context.Context, token string) (auth.User, bool, error) {
	if !isIssuedBy(token, o.cfg.Issuer) {
		return auth.User{}, false, nil
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return o.keys, nil },
		jwt.WithValidMethods([]string{"RS256", "ES256"}), jwt.WithExpirationRequired(), jwt.WithIssuer(o.cfg.Issuer),
		jwt.WithAudience(o.cfg.Audience), jwt.WithLeeway(5*time.Second), jwt.WithTimeFunc(o.now))
	if err != nil {
		return auth.User{}, false, fmt.Errorf("%w: oidc token: %w", ErrInvalid, err)
	}
	name, _ := claims[o.cfg.UsernameClaim].(string)
	if name == "" {
		return auth.User{}, false, fmt.Errorf("%w: oidc token: no %q claim", ErrInvalid, o.cfg.UsernameClaim)
	}
	u := auth.User{Name: o.cfg.UsernamePrefix + name}
	if o.cfg.GroupsClaim != "" {
		switch g := claims[o.cfg.GroupsClaim].(type) {
		case string:
			u.Groups = append(u.Groups, o.cfg.GroupsPrefix+g)
		case []any:
			for _, v := range g {
				if s, ok := v.(string); ok {
					u.Groups = append(u.Groups, o.cfg.GroupsPrefix+s)
				}
			}
		}
	}
	return u, true, nil
}

type jwk struct {
	Kty, Crv, X, Y, N, E string
}

func parseJWKS(data []byte) (jwt.VerificationKeySet, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return jwt.VerificationKeySet{}, fmt.Errorf("parsing JWKS: %w", err)
	}
	var out jwt.VerificationKeySet
	b64 := base64.RawURLEncoding
	for i, k := range set.Keys {
		switch k.Kty {
		case "RSA":
			n, err1 := b64.DecodeString(k.N)
			e, err2 := b64.DecodeString(k.E)
			if err := errors.Join(err1, err2); err != nil {
				return out, fmt.Errorf("JWKS key %d: %w", i, err)
			}
			out.Keys = append(out.Keys, &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())})
		case "EC":
			if k.Crv != "P-256" {
				return out, fmt.Errorf("JWKS key %d: curve %q not supported", i, k.Crv)
			}
			x, err1 := b64.DecodeString(k.X)
			y, err2 := b64.DecodeString(k.Y)
			if err := errors.Join(err1, err2); err != nil {
				return out, fmt.Errorf("JWKS key %d: %w", i, err)
			}
			raw := append(append([]byte{4}, leftPad(x, 32)...), leftPad(y, 32)...)
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
			if err != nil {
				return out, fmt.Errorf("JWKS key %d: %w", i, err)
			}
			out.Keys = append(out.Keys, pub)
		}
	}
	if len(out.Keys) == 0 {
		return out, errors.New("JWKS has no usable keys")
	}
	return out, nil
}

func leftPad(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(make([]byte, n-len(b)), b...)
}
