// Package pki bootstraps the cluster's TLS material in a data directory: a
// self-signed CA, the API server's serving certificate, an admin client
// certificate, a random admin bearer token and an admin kubeconfig.
//
// Ensure is idempotent. It loads what is already in the directory and creates
// only what is missing or unusable, so a restart on an existing directory does
// no key generation. The CA is never replaced once it exists: a CA that is
// expired, unreadable or does not match its key is reported as an error rather
// than silently rotated, because every issued certificate and kubeconfig trusts
// it. Leaf certificates (serving, admin) are re-issued from the CA when they are
// missing, unparsable, not signed by the current CA, lack a requested SAN, or
// have less than 30 days left.
//
// All keys are ECDSA P-256 written as PKCS#8 ("PRIVATE KEY"); loading also
// accepts SEC 1 ("EC PRIVATE KEY") and PKCS#1 RSA keys. Key files and the token
// are written 0600, certificates 0644. Every file is written to a temporary
// file, synced and renamed into place, so a crash never leaves a half-written
// file under its final name.
//
// A Bundle is safe for concurrent use by multiple goroutines. Concurrent
// Ensure calls on the same directory from different processes are not
// coordinated.
package pki
