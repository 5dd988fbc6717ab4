package apiserver

import (
	"crypto/tls"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

// nodeTransport reaches node agents (pods/log) with a client certificate
// CN=api.NodeProxyUser from the cluster CA. Agents serve a self-signed
// certificate, so it is not verified — as kube-apiserver does without
// --kubelet-certificate-authority; the agent, in turn, verifies the hub.
type nodeTransport struct {
	s    *Server
	once sync.Once
	rt   http.RoundTripper
	err  error
}

func (s *Server) nodeTransport() http.RoundTripper { return &nodeTransport{s: s} }

func (t *nodeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.once.Do(func() {
		b := t.s.PKI()
		if b == nil {
			t.err = errors.New("cluster PKI not loaded")
			return
		}
		certPEM, keyPEM, err := b.IssueClient(api.NodeProxyUser, nil)
		if err != nil {
			t.err = err
			return
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.err = err
			return
		}
		t.rt = &http.Transport{
			TLSClientConfig:       &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			IdleConnTimeout:       90 * time.Second,
		}
	})
	if t.err != nil {
		return nil, t.err
	}
	return t.rt.RoundTrip(r)
}
