package pki

import (
	"crypto"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadOrCreateKey reads a PEM private key (PKCS#8, SEC 1 EC or PKCS#1 RSA)
// from path, creating an ECDSA P-256 key there (0600) if the file does not
// exist. The server signs service account tokens with it.
func LoadOrCreateKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		return parseKey(data)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading key: %w", err)
	}
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	pemKey, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := writeFile(path, pemKey, 0o600); err != nil {
		return nil, fmt.Errorf("writing key: %w", err)
	}
	return key, nil
}
