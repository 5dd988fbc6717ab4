package authn

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/capstan-io/capstan/auth"
)

// StaticTokens authenticates tokens from a fixed table, such as the
// --token-auth-file. Lookups compare in constant time.
type StaticTokens struct {
	users map[[32]byte]auth.User // by sha256 of the token
}

var _ TokenAuthenticator = (*StaticTokens)(nil)

// NewStaticTokens returns an empty table.
func NewStaticTokens() *StaticTokens { return &StaticTokens{users: map[[32]byte]auth.User{}} }

// Add maps token to u.
func (s *StaticTokens) Add(token string, u auth.User) { s.users[sha256.Sum256([]byte(token))] = u }

// ReadTokenFile loads a Kubernetes token file: CSV lines token,user,uid[,"g1,g2"].
func ReadTokenFile(path string) (*StaticTokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading token file: %w", err)
	}
	defer f.Close()
	s := NewStaticTokens()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.Comment = '#'
	for line := 1; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return nil, fmt.Errorf("token file %s: %w", path, err)
		}
		if len(rec) < 3 || rec[0] == "" || rec[1] == "" {
			return nil, fmt.Errorf("token file %s line %d: want token,user,uid[,groups]", path, line)
		}
		u := auth.User{Name: rec[1], UID: rec[2]}
		if len(rec) > 3 && rec[3] != "" {
			for g := range strings.SplitSeq(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		s.Add(rec[0], u)
	}
}

// AuthenticateToken looks token up.
func (s *StaticTokens) AuthenticateToken(_ context.Context, token string) (auth.User, bool, error) {
	sum := sha256.Sum256([]byte(token))
	for k, u := range s.users {
		if subtle.ConstantTimeCompare(k[:], sum[:]) == 1 {
			return u, true, nil
		}
	}
	return auth.User{}, false, nil
}
