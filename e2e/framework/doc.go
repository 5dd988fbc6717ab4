// Package framework runs the real capstan binary for end-to-end tests and
// drives it with the reference clients: the kubectl on PATH and client-go.
//
// BuildCapstan compiles ./cmd/capstan once per test binary (with -race when the
// tests themselves run with -race). StartServer runs `capstan server` as a
// child process on free loopback ports with a fresh data dir, waits until it is
// ready and stops it when the test ends; its log is shown when the test fails.
// Kubectl and RestConfig point the clients at that server.
//
// Servers are independent, so tests may start several in parallel. A Server is
// safe for concurrent use.
package framework
