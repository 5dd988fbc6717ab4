package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/capstan-io/capstan/e2e/framework"
)

// Set by TestMain and read-only afterwards.
var (
	capstanBin  string // the capstan binary every test runs
	kubectlPath string // kubectl on PATH, or "" when there is none
	kubectlErr  error  // why kubectlPath is empty
)

// envCapstanBin hands the already built binary to a child test process (see
// runInChild), so it does not build it again.
const envCapstanBin = "CAPSTAN_E2E_BIN"

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	flag.Parse()
	kubectlPath, kubectlErr = exec.LookPath("kubectl")
	if testing.Short() {
		return m.Run() // every test skips in startServer
	}
	if bin := os.Getenv(envCapstanBin); bin != "" {
		capstanBin = bin
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "capstan-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if capstanBin, err = framework.BuildCapstan(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building capstan:", err)
		return 1
	}
	return m.Run()
}

// startServer starts a capstan server for t, or skips t under -short.
func startServer(t *testing.T, extraArgs ...string) *framework.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped under -short: each test runs a capstan server")
	}
	return framework.StartServer(t, capstanBin, extraArgs...)
}

// requireKubectl skips t when kubectl is not on PATH.
func requireKubectl(t *testing.T) {
	t.Helper()
	if kubectlPath == "" {
		t.Skipf("e2e: kubectl is not on PATH (%v); the kubectl tests need the real kubectl", kubectlErr)
	}
}
