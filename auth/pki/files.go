package pki

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File names inside Config.Dir.
const (
	caCertFile      = "ca.crt"
	caKeyFile       = "ca.key"
	servingCertFile = "serving.crt"
	servingKeyFile  = "serving.key"
	adminCertFile   = "admin.crt"
	adminKeyFile    = "admin.key"
	adminTokenFile  = "admin.token"
	kubeconfigFile  = "admin.kubeconfig"
)

// File modes: secrets are owner-only, certificates are world-readable.
const (
	dirMode    fs.FileMode = 0o700
	secretMode fs.FileMode = 0o600
	certMode   fs.FileMode = 0o644
)

// writeFile atomically replaces path with data at mode perm. It writes a
// temporary file in the same directory, syncs it and renames it over path, so
// readers see either the old or the new content, never a partial write.
func writeFile(path string, data []byte, perm fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("creating temporary file for %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	// CreateTemp uses 0600 already; Chmod makes the mode explicit and
	// independent of the umask for certificates.
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("setting mode of %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("renaming %s into place: %w", path, err)
	}
	return nil
}

// readPair reads a certificate file and its key file. ok is false if either
// file does not exist; other read errors are returned.
func readPair(certPath, keyPath string) (certPEM, keyPEM []byte, ok bool, err error) {
	certPEM, err = os.ReadFile(certPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("reading %s: %w", certPath, err)
	}
	keyPEM, err = os.ReadFile(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("reading %s: %w", keyPath, err)
	}
	return certPEM, keyPEM, true, nil
}

// writePair writes a key and its certificate. The key goes first: a crash in
// between leaves a key without a certificate, which loading treats as missing.
func writePair(certPath, keyPath string, certPEM, keyPEM []byte) error {
	if err := writeFile(keyPath, keyPEM, secretMode); err != nil {
		return err
	}
	return writeFile(certPath, certPEM, certMode)
}
