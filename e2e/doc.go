// Package e2e holds black-box tests of the capstan binary. Each test starts
// `capstan server` as a child process (see package framework) and drives it
// with the reference clients: the real kubectl on PATH and client-go.
//
// The tests build the binary once per run, with -race when they run with
// -race. They are skipped under -short. Tests that need kubectl skip when it is
// not on PATH; the client-go tests always run.
package e2e
