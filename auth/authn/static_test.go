package authn

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestReadTokenFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens.csv")
	data := "# comment\nt-alice,alice,u1,\"dev,ops\"\nt-bob,bob,u2\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ReadTokenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, token, user string
		groups            []string
	}{
		{name: "with groups", token: "t-alice", user: "alice", groups: []string{"dev", "ops"}},
		{name: "without groups", token: "t-bob", user: "bob"},
		{name: "unknown", token: "t-carol"},
		{name: "prefix of a token", token: "t-ali"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, ok, err := s.AuthenticateToken(context.Background(), tc.token)
			if err != nil || ok != (tc.user != "") || u.Name != tc.user || !slices.Equal(u.Groups, tc.groups) {
				t.Errorf("AuthenticateToken(%q) = %+v, %v, %v", tc.token, u, ok, err)
			}
		})
	}
	if err := os.WriteFile(path, []byte("only-a-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTokenFile(path); err == nil {
		t.Error("a line without user and uid was accepted")
	}
}

func TestOIDC(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": "k1", "n": b64.EncodeToString(key.N.Bytes()), "e": b64.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
	}}})
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := NewOIDC(OIDCConfig{Issuer: "https://idp.example", Audience: "capstan", JWKSFile: path,
		UsernameClaim: "email", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "oidc:"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := func(aud string, exp time.Time) jwt.MapClaims {
		return jwt.MapClaims{"iss": "https://idp.example", "aud": aud, "exp": exp.Unix(), "email": "jane@example.com", "groups": []string{"eng"}}
	}
	sign := func(c jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	u, ok, err := o.AuthenticateToken(context.Background(), sign(claims("capstan", now.Add(time.Hour))))
	if !ok || err != nil || u.Name != "oidc:jane@example.com" || !slices.Equal(u.Groups, []string{"oidc:eng"}) {
		t.Errorf("valid token: %+v, %v, %v", u, ok, err)
	}
	for name, tok := range map[string]string{
		"wrong audience": sign(claims("other", now.Add(time.Hour))),
		"expired":        sign(claims("capstan", now.Add(-time.Hour))),
	} {
		if _, ok, err := o.AuthenticateToken(context.Background(), tok); ok || err == nil {
			t.Errorf("%s: accepted (%v, %v)", name, ok, err)
		}
	}
}
