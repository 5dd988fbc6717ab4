package apiserver_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine running: every
// server, watch, hub and etcd member a test starts must be stopped by it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
