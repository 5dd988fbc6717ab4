package pki

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"
)

// reloadCheckEvery bounds how often CertReloader looks at its files.
const reloadCheckEvery = time.Second

// CertReloader serves a certificate from a pair of PEM files and re-reads
// them when either file's modification time or size changes, so a rotated
// certificate is served without a restart. A pair that fails to load keeps
// the previous one in service. It is safe for concurrent use.
type CertReloader struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   string    // modification times and sizes of the loaded files
	checked time.Time // when the files were last looked at
}

// NewCertReloader loads the pair once, failing if it cannot.
func NewCertReloader(certFile, keyFile string) (*CertReloader, error) {
	r := &CertReloader{certFile: certFile, keyFile: keyFile}
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// GetCertificate is a tls.Config.GetCertificate.
func (r *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.checked) >= reloadCheckEvery {
		r.checked = time.Now()
		if r.fileStamp() != r.stamp {
			_ = r.reloadLocked() // keep serving the old pair until the new one is complete and valid
		}
	}
	return r.cert, nil
}

func (r *CertReloader) fileStamp() string {
	var s string
	for _, f := range []string{r.certFile, r.keyFile} {
		if fi, err := os.Stat(f); err == nil {
			s += fmt.Sprintf("%d/%d;", fi.ModTime().UnixNano(), fi.Size())
		}
	}
	return s
}

func (r *CertReloader) reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reloadLocked()
}

func (r *CertReloader) reloadLocked() error {
	stamp := r.fileStamp()
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("loading serving certificate: %w", err)
	}
	r.cert, r.stamp, r.checked = &c, stamp, time.Now()
	return nil
}
