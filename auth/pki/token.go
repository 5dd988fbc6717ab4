package pki

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// loadOrCreateToken returns the token stored at path, creating a random
// 32-byte hex token if the file is missing or blank.
func loadOrCreateToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if tok := strings.TrimSpace(string(data)); tok != "" {
			return tok, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("reading admin token: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("generating admin token: %w", err)
	}
	tok := hex.EncodeToString(raw[:])
	if err := writeFile(path, []byte(tok), secretMode); err != nil {
		return "", fmt.Errorf("writing admin token: %w", err)
	}
	return tok, nil
}
