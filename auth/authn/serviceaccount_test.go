package authn

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const testIssuer = "https://kubernetes.default.svc.cluster.local"

// fakeObjects is an in-memory ObjectUIDs.
type fakeObjects map[string]string // "sa/ns/name" or "pod/ns/name" → uid

func (f fakeObjects) ServiceAccountUID(ns, name string) (string, bool) {
	u, ok := f["sa/"+ns+"/"+name]
	return u, ok
}

func (f fakeObjects) PodUID(ns, name string) (string, bool) {
	u, ok := f["pod/"+ns+"/"+name]
	return u, ok
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// validClaims are the claims of a good token for demo/bot, to be spoiled per case.
func validClaims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss": testIssuer, "sub": "system:serviceaccount:demo:bot", "aud": []string{testIssuer},
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"kubernetes.io": map[string]any{"namespace": "demo", "serviceaccount": map[string]any{"name": "bot", "uid": "sa-uid"}},
	}
}

func TestServiceAccountTokens(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	objects := fakeObjects{"sa/demo/bot": "sa-uid", "pod/demo/web": "pod-uid"}
	sa, err := NewServiceAccounts(key, testIssuer, []string{testIssuer}, objects)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	sign := func(method jwt.SigningMethod, k any, c jwt.MapClaims) string {
		t.Helper()
		s, err := jwt.NewWithClaims(method, c).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	spoil := func(f func(jwt.MapClaims)) jwt.MapClaims { c := validClaims(now); f(c); return c }
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	good, _, err := sa.Issue(TokenRequest{Namespace: "demo", ServiceAccount: Ref{Name: "bot", UID: "sa-uid"}, Expiration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	podBound, _, err := sa.Issue(TokenRequest{Namespace: "demo", ServiceAccount: Ref{Name: "bot", UID: "sa-uid"}, Pod: &Ref{Name: "web", UID: "pod-uid"}, Expiration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	staleSA, _, _ := sa.Issue(TokenRequest{Namespace: "demo", ServiceAccount: Ref{Name: "bot", UID: "old-uid"}, Expiration: time.Hour})
	deletedSA, _, _ := sa.Issue(TokenRequest{Namespace: "demo", ServiceAccount: Ref{Name: "gone", UID: "x"}, Expiration: time.Hour})
	deletedPod, _, _ := sa.Issue(TokenRequest{Namespace: "demo", ServiceAccount: Ref{Name: "bot", UID: "sa-uid"}, Pod: &Ref{Name: "gone", UID: "p"}, Expiration: time.Hour})
	header, _, _ := strings.Cut(good, ".")
	body := strings.SplitN(good, ".", 3)[1]

	for _, tc := range []struct {
		name, token string
		wantOK      bool
		notOurs     bool // another issuer's or not a JWT: ok false, nil error
	}{
		{name: "valid", token: good, wantOK: true},
		{name: "valid pod-bound", token: podBound, wantOK: true},
		{name: "wrong signing key", token: sign(jwt.SigningMethodES256, newKey(t), validClaims(now))},
		{name: "alg none", token: sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, validClaims(now))},
		{name: "HS256 signed with the public key", token: sign(jwt.SigningMethodHS256, pubPEM, validClaims(now))},
		{name: "HS256 signed with the public key DER", token: sign(jwt.SigningMethodHS256, pubDER, validClaims(now))},
		{name: "expired", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() }))},
		{name: "no expiry", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { delete(c, "exp") }))},
		{name: "not yet valid", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() }))},
		{name: "issued in the future", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Hour).Unix() }))},
		{name: "wrong audience", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { c["aud"] = []string{"vault"} }))},
		{name: "wrong issuer", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })), notOurs: true},
		{name: "subject does not match claims", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { c["sub"] = "system:serviceaccount:kube-system:admin" }))},
		{name: "no kubernetes.io claims", token: sign(jwt.SigningMethodES256, key, spoil(func(c jwt.MapClaims) { delete(c, "kubernetes.io") }))},
		{name: "service account recreated (uid changed)", token: staleSA},
		{name: "deleted service account", token: deletedSA},
		{name: "deleted pod", token: deletedPod},
		{name: "truncated", token: good[:len(good)-10]},
		{name: "signature removed", token: strings.TrimSuffix(good, good[strings.LastIndex(good, "."):]) + "."},
		{name: "payload swapped", token: header + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"`+testIssuer+`","sub":"system:serviceaccount:kube-system:admin"}`)) + "." + strings.SplitN(good, ".", 3)[2]},
		{name: "body reused with other header", token: base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + body + "."},
		{name: "garbage", token: "garbage", notOurs: true},
		{name: "empty segments", token: "..", notOurs: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, ok, err := sa.AuthenticateToken(context.Background(), tc.token)
			switch {
			case tc.wantOK:
				if !ok || err != nil {
					t.Fatalf("AuthenticateToken = %v, %v; want ok", ok, err)
				}
				if u.Name != "system:serviceaccount:demo:bot" || u.UID != "sa-uid" {
					t.Errorf("user = %+v", u)
				}
			case tc.notOurs:
				if ok || err != nil {
					t.Fatalf("AuthenticateToken = %v, %v; want not recognised", ok, err)
				}
			default:
				if ok || !errors.Is(err, ErrInvalid) {
					t.Fatalf("AuthenticateToken = %+v, %v, %v; want ErrInvalid", u, ok, err)
				}
			}
			// Through the token chain, anything but a valid token is refused.
			_, ok, err = Tokens{NewStaticTokens(), sa}.AuthenticateToken(context.Background(), tc.token)
			if ok != tc.wantOK || (err == nil) != tc.wantOK {
				t.Errorf("Tokens.AuthenticateToken = %v, %v", ok, err)
			}
		})
	}
}
