package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/capstan-io/capstan/auth/pki"
)

// tlsConfig serves TLS 1.2+ with the configured certificate files (re-read
// when they change) or the one issued from the cluster CA, and verifies
// client certificates against the cluster CA.
func (s *Server) tlsConfig(bundle *pki.Bundle) (*tls.Config, error) {
	caPool := x509.NewCertPool()
	caPool.AddCert(bundle.CACert)
	c := &tls.Config{
		Certificates: []tls.Certificate{bundle.ServingCert},
		ClientAuth:   tls.RequestClientCert, // verified by authn.X509, so a bad certificate is a 401
		ClientCAs:    caPool,                // advertised to clients choosing a certificate
		MinVersion:   tls.VersionTLS12,
	}
	if a := s.cfg.Auth; a.TLSCertFile != "" {
		r, err := pki.NewCertReloader(a.TLSCertFile, a.TLSPrivateKeyFile)
		if err != nil {
			return nil, err
		}
		c.Certificates, c.GetCertificate = nil, r.GetCertificate
	}
	return c, nil
}

// edge is the security of the HTTP edge: who, what may, how served, what is recorded.
type edge struct {
	sec       *authStack
	tls       *tls.Config
	audit     io.Writer // nil without --audit-log-path
	auditFile *os.File
}

// newEdge builds the authenticators and authorizers, the TLS config and the audit log.
func (s *Server) newEdge(bundle *pki.Bundle) (*edge, error) {
	sec, err := s.newAuth(bundle)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := s.tlsConfig(bundle)
	if err != nil {
		return nil, err
	}
	e := &edge{sec: sec, tls: tlsConfig}
	if p := s.cfg.Auth.AuditLogPath; p != "" {
		if e.auditFile, err = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
			return nil, fmt.Errorf("opening audit log: %w", err)
		}
		e.audit = e.auditFile
	}
	return e, nil
}

// Close closes the audit log.
func (e *edge) Close() error {
	if e.auditFile == nil {
		return nil
	}
	return e.auditFile.Close()
}

// serveInsecure serves h over plain HTTP on 127.0.0.1:InsecurePort when that
// is set. Credentials are still required: only bearer tokens can be sent.
func (s *Server) serveInsecure(ctx context.Context, wg *sync.WaitGroup, h http.Handler, errc chan<- error) (*http.Server, error) {
	if s.cfg.Auth.InsecurePort == 0 {
		return nil, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.cfg.Auth.InsecurePort)))
	if err != nil {
		return nil, fmt.Errorf("listening on the insecure port: %w", err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); err != http.ErrServerClosed {
			errc <- fmt.Errorf("insecure port: %w", err)
		}
	}()
	s.log.Warn("serving plain HTTP on loopback", "addr", ln.Addr().String())
	return srv, nil
}
