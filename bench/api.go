package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// apiClient talks to one server as admin over a shared connection pool.
type apiClient struct {
	hc    *http.Client
	base  string // https://host:port
	token string
}

// newTransport trusts only caPEM and keeps at least conns idle connections per host.
// It speaks HTTP/2 unless http1 is set; either way connections are reused.
func newTransport(caPEM []byte, conns int, http1 bool) (*http.Transport, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no certificate in ca.crt")
	}
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(!http1)
	return &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		Protocols:           &protos,
		MaxIdleConns:        2 * conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}, nil
}

// newAPIClient reads the CA and admin token from a server's data dir.
func newAPIClient(base, dataDir string, conns int, http1 bool) (*apiClient, error) {
	caPEM, err := os.ReadFile(filepath.Join(dataDir, "ca.crt"))
	if err != nil {
		return nil, err
	}
	tok, err := os.ReadFile(filepath.Join(dataDir, "admin.token"))
	if err != nil {
		return nil, err
	}
	tr, err := newTransport(caPEM, conns, http1)
	if err != nil {
		return nil, err
	}
	return &apiClient{hc: &http.Client{Transport: tr}, base: base, token: strings.TrimSpace(string(tok))}, nil
}

// close drops idle connections, so their reader goroutines end.
func (c *apiClient) close() { c.hc.CloseIdleConnections() }

func (c *apiClient) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends a request and returns the body if the status is want; otherwise a *statusError.
func (c *apiClient) do(ctx context.Context, method, path string, body []byte, want int) ([]byte, error) {
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return nil, &statusError{Code: resp.StatusCode, Body: truncate(string(b), 200)}
	}
	return b, nil
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// objectMeta and configMap are the parts of a ConfigMap the benchmark writes and reads.
type objectMeta struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

type configMap struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   objectMeta        `json:"metadata"`
	Data       map[string]string `json:"data,omitempty"`
}

// configMapSize is the target size of a created ConfigMap's JSON body.
const configMapSize = 300

// newConfigMap encodes a ConfigMap padded to about configMapSize bytes.
func newConfigMap(ns, name, rv string, data map[string]string) []byte {
	cm := configMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: objectMeta{Name: name, Namespace: ns, ResourceVersion: rv}, Data: data}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["payload"] = ""
	b, _ := json.Marshal(cm)
	if pad := configMapSize - len(b); pad > 0 {
		cm.Data["payload"] = strings.Repeat("x", pad)
		b, _ = json.Marshal(cm)
	}
	return b
}

func cmPath(ns, name string) string {
	if name == "" {
		return "/api/v1/namespaces/" + ns + "/configmaps"
	}
	return "/api/v1/namespaces/" + ns + "/configmaps/" + name
}

// ensureNamespace creates ns; one that already exists is fine.
func (c *apiClient) ensureNamespace(ctx context.Context, ns string) error {
	body := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
	_, err := c.do(ctx, http.MethodPost, "/api/v1/namespaces", body, http.StatusCreated)
	if se := (*statusError)(nil); errors.As(err, &se) && se.Code == http.StatusConflict {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	return nil
}

// listRV lists configmaps in ns and returns the list's resourceVersion.
func (c *apiClient) listRV(ctx context.Context, ns string) (string, error) {
	b, err := c.do(ctx, http.MethodGet, cmPath(ns, ""), nil, http.StatusOK)
	if err != nil {
		return "", err
	}
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return "", fmt.Errorf("decoding list: %w", err)
	}
	if l.Metadata.ResourceVersion == "" {
		return "", errors.New("list has no resourceVersion")
	}
	return l.Metadata.ResourceVersion, nil
}

// waitReady polls /readyz every interval until it answers 200, the child exits, or
// timeout passes. It trusts ca.crt from the data dir as soon as the server has written
// it, so it needs no insecure TLS. It returns the time from exec to that first 200.
func waitReady(ctx context.Context, p *serverProc, interval, timeout time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var hc *http.Client
	defer func() {
		if hc != nil {
			hc.CloseIdleConnections()
		}
	}()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var lastErr error
	for {
		if p.exited() {
			lines, _ := p.logLines(20)
			return 0, fmt.Errorf("capstan server exited before ready (%v):\n%s", p.err, strings.Join(lines, "\n"))
		}
		if hc == nil {
			if caPEM, err := os.ReadFile(filepath.Join(p.dataDir, "ca.crt")); err == nil {
				tr, err := newTransport(caPEM, 1, false)
				if err != nil {
					return 0, err
				}
				hc = &http.Client{Transport: tr, Timeout: 2 * time.Second}
			}
		}
		if hc != nil {
			ok, err := probe(ctx, hc, p.url+"/readyz")
			if ok {
				return time.Since(p.started), nil
			}
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("capstan server not ready within %v (last probe: %v): %w", timeout, lastErr, ctx.Err())
		case <-tick.C:
		}
	}
}

func probe(ctx context.Context, hc *http.Client, url string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return false, &statusError{Code: resp.StatusCode}
	}
	return true, nil
}

// protocol is the HTTP version the server answers this client with.
func (c *apiClient) protocol(ctx context.Context) string {
	req, err := c.newRequest(ctx, http.MethodGet, "/version", nil)
	if err != nil {
		return "?"
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return "?"
	}
	resp.Body.Close()
	return resp.Proto
}
