package authn

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/capstan-io/capstan/auth"
)

// ObjectUIDs says which service accounts and pods exist now, by uid. The
// server answers from memory (a cache fed by its watches), so checking a
// token costs no storage read.
type ObjectUIDs interface {
	ServiceAccountUID(namespace, name string) (uid string, ok bool)
	PodUID(namespace, name string) (uid string, ok bool)
}

// Ref names one object a token is bound to.
type Ref struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// kubernetesClaims is the "kubernetes.io" claim of a service account token.
type kubernetesClaims struct {
	Namespace      string `json:"namespace"`
	ServiceAccount Ref    `json:"serviceaccount"`
	Pod            *Ref   `json:"pod,omitempty"`
}

type saClaims struct {
	jwt.RegisteredClaims
	Kubernetes *kubernetesClaims `json:"kubernetes.io,omitempty"`
}

// TokenRequest is what a service account token is issued for.
type TokenRequest struct {
	Namespace      string
	ServiceAccount Ref
	Pod            *Ref
	// Audiences default to the issuer's API audiences.
	Audiences []string
	// Expiration is the token's lifetime from now.
	Expiration time.Duration
}

// ServiceAccounts issues and checks the service account JWTs this server signs.
type ServiceAccounts struct {
	key       crypto.Signer
	method    jwt.SigningMethod
	issuer    string
	audiences []string
	objects   ObjectUIDs
	now       func() time.Time
}

var _ TokenAuthenticator = (*ServiceAccounts)(nil)

// NewServiceAccounts signs with key (ECDSA P-256 → ES256, RSA → RS256) as issuer;
// tokens it accepts must name one of audiences and be bound to objects that exist.
func NewServiceAccounts(key crypto.Signer, issuer string, audiences []string, objects ObjectUIDs) (*ServiceAccounts, error) {
	var m jwt.SigningMethod
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve.Params().BitSize != 256 {
			return nil, errors.New("authn: service account ECDSA key must be P-256")
		}
		m = jwt.SigningMethodES256
	case *rsa.PrivateKey:
		m = jwt.SigningMethodRS256
	default:
		return nil, fmt.Errorf("authn: unsupported service account key type %T", key)
	}
	if issuer == "" || len(audiences) == 0 || objects == nil {
		return nil, errors.New("authn: service account tokens need an issuer, audiences and an object lookup")
	}
	return &ServiceAccounts{key: key, method: m, issuer: issuer, audiences: audiences, objects: objects, now: time.Now}, nil
}

// Issue signs a token for req and returns it with its expiry.
func (s *ServiceAccounts) Issue(req TokenRequest) (string, time.Time, error) {
	now := s.now()
	exp := now.Add(req.Expiration)
	aud := req.Audiences
	if len(aud) == 0 {
		aud = s.audiences
	}
	c := saClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.issuer,
			Subject:   auth.ServiceAccountPrefix + req.Namespace + ":" + req.ServiceAccount.Name,
			Audience:  aud,
			ExpiresAt: jwt.NewNumericDate(exp),
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
		},
		Kubernetes: &kubernetesClaims{Namespace: req.Namespace, ServiceAccount: req.ServiceAccount, Pod: req.Pod},
	}
	tok, err := jwt.NewWithClaims(s.method, c).SignedString(s.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("signing service account token: %w", err)
	}
	return tok, exp, nil
}

// AuthenticateToken accepts a token this server signed for one of its
// audiences, unexpired, whose service account (and pod) still exist with the
// uids it names. A JWT from another issuer is not ours: ok false, nil error.
func (s *ServiceAccounts) AuthenticateToken(_ context.Context, token string) (auth.User, bool, error) {
	if !isIssuedBy(token, s.issuer) {
		return auth.User{}, false, nil
	}
	var c saClaims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return s.key.Public(), nil },
		jwt.WithValidMethods([]string{s.method.Alg()}), jwt.WithExpirationRequired(), jwt.WithIssuer(s.issuer),
		jwt.WithIssuedAt(), jwt.WithLeeway(5*time.Second), jwt.WithTimeFunc(s.now))
	if err != nil {
		return auth.User{}, false, fmt.Errorf("%w: service account token: %w", ErrInvalid, err)
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(s.audiences, a) }) {
		return auth.User{}, false, fmt.Errorf("%w: service account token: audience %v not accepted", ErrInvalid, []string(c.Audience))
	}
	k := c.Kubernetes
	if k == nil || k.Namespace == "" || k.ServiceAccount.Name == "" ||
		c.Subject != auth.ServiceAccountPrefix+k.Namespace+":"+k.ServiceAccount.Name {
		return auth.User{}, false, fmt.Errorf("%w: service account token: malformed kubernetes.io claims", ErrInvalid)
	}
	if uid, ok := s.objects.ServiceAccountUID(k.Namespace, k.ServiceAccount.Name); !ok || uid != k.ServiceAccount.UID {
		return auth.User{}, false, fmt.Errorf("%w: service account %s/%s (uid %s) no longer exists", ErrInvalid, k.Namespace, k.ServiceAccount.Name, k.ServiceAccount.UID)
	}
	u := auth.User{
		Name:   c.Subject,
		UID:    k.ServiceAccount.UID,
		Groups: []string{auth.GroupServiceAccounts, auth.GroupServiceAccounts + ":" + k.Namespace},
	}
	if k.Pod != nil {
		if uid, ok := s.objects.PodUID(k.Namespace, k.Pod.Name); !ok || uid != k.Pod.UID {
			return auth.User{}, false, fmt.Errorf("%w: pod %s/%s (uid %s) no longer exists", ErrInvalid, k.Namespace, k.Pod.Name, k.Pod.UID)
		}
		u.Extra = map[string][]string{
			"authentication.kubernetes.io/pod-name": {k.Pod.Name},
			"authentication.kubernetes.io/pod-uid":  {k.Pod.UID},
		}
	}
	return u, true, nil
}

// isIssuedBy reports whether token looks like a JWT whose (unverified) iss is issuer.
func isIssuedBy(token, issuer string) bool {
	if strings.Count(token, ".") != 2 {
		return false
	}
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &c); err != nil {
		return false
	}
	return c.Issuer == issuer
}
