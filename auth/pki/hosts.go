package pki

import (
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strings"
)

// servingHosts returns the SANs the serving certificate must carry: the
// defaults, the machine's hostname and extra, normalised (IPs in canonical
// form, DNS names lower-case) and without duplicates.
func servingHosts(extra []string) ([]string, error) {
	seen := make(map[string]bool)
	var hosts []string
	add := func(h string) error {
		h, err := normalizeHost(h)
		if err != nil || h == "" || seen[h] {
			return err
		}
		seen[h] = true
		hosts = append(hosts, h)
		return nil
	}
	// The loopback names are always present so local clients can reach the
	// server by name or address.
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		_ = add(h)
	}
	// A hostname that is not a usable DNS name is skipped rather than
	// failing start-up: it is a convenience SAN, not a requested one.
	if name, err := os.Hostname(); err == nil {
		_ = add(name)
	}
	for _, h := range extra {
		if err := add(h); err != nil {
			return nil, err
		}
	}
	return hosts, nil
}

// normalizeHost returns h as a canonical IP or lower-case DNS name, "" for a
// blank entry, or an error if h is neither (for example a URL or host:port).
func normalizeHost(h string) (string, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return "", nil
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), nil
	}
	if strings.ContainsAny(h, " \t/:@[]") {
		return "", fmt.Errorf("pki: host %q is neither an IP address nor a DNS name", h)
	}
	return strings.ToLower(strings.TrimSuffix(h, ".")), nil
}

// splitHosts separates normalised hosts into DNS names and IP addresses.
func splitHosts(hosts []string) (dns []string, ips []net.IP) {
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			dns = append(dns, h)
		}
	}
	return dns, ips
}

// hasSAN reports whether cert lists host (normalised) exactly as a SAN.
// Wildcard matching is deliberately not applied: a requested name must be in
// the certificate as requested.
func hasSAN(cert *x509.Certificate, host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		for _, have := range cert.IPAddresses {
			if have.Equal(ip) {
				return true
			}
		}
		return false
	}
	for _, have := range cert.DNSNames {
		if strings.EqualFold(have, host) {
			return true
		}
	}
	return false
}
