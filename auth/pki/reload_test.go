package pki

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCertReloaderPicksUpNewFiles(t *testing.T) {
	t.Parallel()
	// Two unrelated serving pairs, from two data dirs.
	var pairs [2][2][]byte
	for i := range pairs {
		b, err := Ensure(Config{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for j, f := range []string{servingCertFile, servingKeyFile} {
			if pairs[i][j], err = os.ReadFile(filepath.Join(b.Dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	write := func(p [2][]byte) {
		t.Helper()
		if err := os.WriteFile(certPath, p[0], 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keyPath, p[1], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(pairs[0])
	r, err := NewCertReloader(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	served := func() []byte {
		t.Helper()
		c, err := r.GetCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		return c.Certificate[0]
	}
	first := served()
	write(pairs[1])
	later := time.Now().Add(time.Hour) // a different mtime even on coarse file systems
	os.Chtimes(certPath, later, later)
	os.Chtimes(keyPath, later, later)
	r.mu.Lock()
	r.checked = time.Time{} // as if a second had passed
	r.mu.Unlock()
	if bytes.Equal(served(), first) {
		t.Fatal("the new certificate is not served")
	}
	// A half-written pair keeps the last good one in service.
	second := served()
	if err := os.WriteFile(keyPath, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.checked = time.Time{}
	r.mu.Unlock()
	if !bytes.Equal(served(), second) {
		t.Fatal("a broken pair replaced the good one")
	}
}
