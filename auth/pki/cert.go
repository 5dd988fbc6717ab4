package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"
)

const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	// renewBefore is how close to expiry a leaf certificate may get before
	// it is re-issued.
	renewBefore = 30 * 24 * time.Hour
	// backdate moves NotBefore into the past so peers with a slightly slow
	// clock accept a freshly issued certificate.
	backdate = 5 * time.Minute
)

var (
	errNoCert = errors.New("pki: no CERTIFICATE PEM block")
	errNoKey  = errors.New("pki: no private key PEM block")
)

func newKey() (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating ECDSA P-256 key: %w", err)
	}
	return key, nil
}

// newSerial returns a random, positive 128-bit serial number.
func newSerial() (*big.Int, error) {
	limit := new(big.Int).Lsh(big.NewInt(1), 128)
	for {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return nil, fmt.Errorf("generating serial number: %w", err)
		}
		if n.Sign() > 0 {
			return n, nil
		}
	}
}

// sign creates a certificate from tmpl for pub, signed by parent with
// parentKey. A nil parent makes the certificate self-signed. tmpl gets a fresh
// serial number.
func sign(tmpl, parent *x509.Certificate, pub crypto.PublicKey, parentKey crypto.Signer) (*x509.Certificate, []byte, error) {
	serial, err := newSerial()
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber = serial
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing issued certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	return cert, der, nil
}

// issueLeaf generates a key and a certificate from tmpl signed by the CA, and
// returns both as PEM.
func issueLeaf(ca *x509.Certificate, caKey crypto.Signer, tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	if ca == nil || caKey == nil {
		return nil, nil, errors.New("pki: bundle has no CA")
	}
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	_, der, err := sign(tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return encodeCert(der), keyPEM, nil
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// parseCert returns the first CERTIFICATE block in data.
func parseCert(data []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errNoCert
		}
		if block.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing certificate: %w", err)
			}
			return cert, nil
		}
	}
}

// parseKey returns the first private key in data: PKCS#8, SEC 1 EC or PKCS#1
// RSA.
func parseKey(data []byte) (crypto.Signer, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errNoKey
		}
		var (
			key any
			err error
		)
		switch block.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", block.Type, err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("pki: %T is not a crypto.Signer", key)
		}
		return signer, nil
	}
}

// keyMatches reports whether key is the private half of cert's public key.
func keyMatches(cert *x509.Certificate, key crypto.Signer) bool {
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(cert.PublicKey)
}

// usableLeaf parses a PEM certificate/key pair and reports whether it can be
// kept: the key matches, the certificate is signed by ca, it has usage, it is
// already valid at now and has at least renewBefore left.
func usableLeaf(certPEM, keyPEM []byte, ca *x509.Certificate, usage x509.ExtKeyUsage, now time.Time) (tls.Certificate, bool) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, false
	}
	leaf := pair.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return tls.Certificate{}, false
		}
		pair.Leaf = leaf
	}
	if now.Before(leaf.NotBefore) || leaf.NotAfter.Sub(now) < renewBefore {
		return tls.Certificate{}, false
	}
	if !slices.Contains(leaf.ExtKeyUsage, usage) {
		return tls.Certificate{}, false
	}
	if leaf.CheckSignatureFrom(ca) != nil {
		return tls.Certificate{}, false
	}
	return pair, true
}
