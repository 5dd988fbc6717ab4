package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// Config says where the hub is and how to prove who we are.
type Config struct {
	// Server is the base URL, such as https://127.0.0.1:6443.
	Server string
	// FallbackServers are further base URLs of the same cluster (other hub
	// replicas). When a connection to the current server cannot be made, the
	// request is sent to the next one, which then stays current.
	FallbackServers []string
	// CAData is the PEM of the CA that signed the serving certificate.
	CAData []byte
	// CertData and KeyData are a PEM client certificate and key, if any.
	CertData, KeyData []byte
	// Token is a bearer token, if any.
	Token string
	// Timeout bounds each non-watch request; 0 means 30s.
	Timeout time.Duration
}

// Client talks to one hub.
type Client struct {
	cfg     Config
	http    *http.Client
	servers []string     // Server, then FallbackServers
	cur     atomic.Int32 // index into servers of the one in use
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Server == "" {
		return nil, errors.New("client: no server URL")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(cfg.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CAData) {
			return nil, errors.New("client: no certificate in CA data")
		}
		tlsCfg.RootCAs = pool
	}
	if len(cfg.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		if err != nil {
			return nil, fmt.Errorf("client: loading client certificate: %w", err)
		}
		tlsCfg.Certificates = []tls.Certificate{cert}
	}
	tr := &http.Transport{
		TLSClientConfig:     tlsCfg,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Client{cfg: cfg, http: &http.Client{Transport: tr}, servers: append([]string{cfg.Server}, cfg.FallbackServers...)}, nil
}

// HTTPClient is the underlying client, for callers that need raw requests.
func (c *Client) HTTPClient() *http.Client { return c.http }

// Server is the base URL in use.
func (c *Client) Server() string { return c.servers[c.cur.Load()] }

// Request is one raw API call.
type Request struct {
	Method, Path string
	// Query is appended as is, without the "?".
	Query       string
	ContentType string
	Body        []byte
	Accept      string
}

// Do sends req and returns the response body. A non-2xx answer is returned as an *apierrors.StatusError.
func (c *Client) Do(ctx context.Context, req Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	resp, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, decodeStatus(resp.StatusCode, b)
	}
	return b, nil
}

// send sends req to the current server; if no connection can be made to it,
// the other servers are tried in turn. Only dial failures fail over: the
// request never reached a server, so even a create is safe to resend.
func (c *Client) send(ctx context.Context, req Request) (*http.Response, error) {
	start := int(c.cur.Load())
	var err error
	for i := range c.servers {
		idx := (start + i) % len(c.servers)
		var resp *http.Response
		resp, err = c.sendTo(ctx, c.servers[idx], req)
		if err == nil {
			if idx != start {
				c.cur.CompareAndSwap(int32(start), int32(idx))
			}
			return resp, nil
		}
		var op *net.OpError
		if ctx.Err() != nil || !errors.As(err, &op) || op.Op != "dial" {
			return nil, err
		}
	}
	return nil, err
}

func (c *Client) sendTo(ctx context.Context, server string, req Request) (*http.Response, error) {
	url := server + req.Path
	if req.Query != "" {
		url += "?" + req.Query
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, url, body)
	if err != nil {
		return nil, err
	}
	if req.ContentType != "" {
		hr.Header.Set("Content-Type", req.ContentType)
	} else if req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	accept := req.Accept
	if accept == "" {
		accept = "application/json"
	}
	hr.Header.Set("Accept", accept)
	if c.cfg.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	return c.http.Do(hr)
}

// decodeStatus turns an error response into a StatusError, inventing one when the body is not a Status.
func decodeStatus(code int, body []byte) error {
	se := &apierrors.StatusError{}
	if err := json.Unmarshal(body, &se.Status); err != nil || se.Status.Kind != "Status" {
		return apierrors.New(code, http.StatusText(code), fmt.Sprintf("the server responded with %d: %s", code, bytes.TrimSpace(body)), nil)
	}
	if se.Status.Code == 0 {
		se.Status.Code = int32(code)
	}
	return se
}
