// Package agenttest holds helpers for tests of agents and of the binaries
// that run them: bounded polling for conditions on a real hub. It is used
// only from tests and is safe for concurrent use.
package agenttest
