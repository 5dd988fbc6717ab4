package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// runHealthcheck GETs one URL on this host and fails unless it answers 200:
// the container health check of images that have no shell or curl. Only
// loopback URLs are accepted, which is why not verifying the certificate is
// acceptable: the probe never leaves the container.
func runHealthcheck(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("healthcheck", flag.ExitOnError)
	timeout := fs.Duration("timeout", 2*time.Second, "bound on the request")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("usage: capstan healthcheck [--timeout d] http(s)://127.0.0.1:port/path")
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil {
		return err
	}
	if h := u.Hostname(); h != "127.0.0.1" && h != "localhost" && h != "::1" {
		return fmt.Errorf("healthcheck only probes this host, not %q", h)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", u, resp.Status, body)
	}
	return nil
}
