package agenttest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// ownFrames mark goroutines that an agent or the client started.
var ownFrames = []string{"capstan-io/capstan/agents/", "capstan-io/capstan/apiserver/client."}

// Main runs the tests, then fails the run if goroutines started by agents or
// the client are still running 5 seconds after the last test: every
// component must own and stop its goroutines. Use it as TestMain:
//
//	func TestMain(m *testing.M) { agenttest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := waitLeaks(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "leaked goroutines:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

func waitLeaks(timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		leaked := leaks()
		if leaked == "" || time.Now().After(deadline) {
			return leaked
		}
		<-tick.C
	}
}

// leaks returns the stacks of our goroutines other than this one.
func leaks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "agenttest.leaks") || strings.Contains(g, "agenttest.Main") {
			continue
		}
		for _, f := range ownFrames {
			if strings.Contains(g, f) {
				out = append(out, g)
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}
