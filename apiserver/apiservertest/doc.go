// Package apiservertest runs a real hub in-process for tests: a fresh embedded
// etcd per test, the server on a free loopback port, and an admin client.
package apiservertest
