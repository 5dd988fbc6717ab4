package e2e

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/e2e/framework"
)

// watchLineTimeout bounds the wait for each expected line of `kubectl get -w`.
const watchLineTimeout = 20 * time.Second

// testKubectlWatch runs `kubectl get pods -A -w` in the background while a pod
// is created, labeled and deleted, and reads the lines it prints.
func testKubectlWatch(t *testing.T, s *framework.Server, ns string) {
	for _, tc := range []struct {
		name       string
		flags      []string
		nsCol      int      // index of the NAMESPACE column; NAME follows it
		wantEvents []string // the EVENT column, when printed
	}{
		{name: "plain", nsCol: 0},
		{name: "events", flags: []string{"--output-watch-events"}, nsCol: 1, wantEvents: []string{"ADDED", "MODIFIED", "DELETED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := startKubectlWatch(t, s, append([]string{"get", "pods", "-A", "-w"}, tc.flags...)...)
			pod := func(name string) func([]string) bool {
				return func(f []string) bool { return len(f) > tc.nsCol+1 && f[tc.nsCol] == ns && f[tc.nsCol+1] == name }
			}

			// Once kubectl shows the sentinel, its list is done and it is watching,
			// so it cannot miss the events below.
			sentinel, subject := "sentinel-"+tc.name, "subject-"+tc.name
			kubectl(t, s, "run", sentinel, "--image=nginx", "-n", ns)
			w.next(pod(sentinel))

			kubectl(t, s, "run", subject, "--image=nginx", "-n", ns)
			kubectl(t, s, "label", "pod", subject, "-n", ns, "watched=yes")
			kubectl(t, s, "delete", "pod", subject, "-n", ns, "--wait=false")
			for i, step := range []string{"create", "label", "delete"} {
				f := w.next(pod(subject))
				if tc.wantEvents != nil && f[0] != tc.wantEvents[i] {
					t.Errorf("after %s: event %q, want %q: %v", step, f[0], tc.wantEvents[i], f)
				}
				if status := f[tc.nsCol+3]; status != "Pending" {
					t.Errorf("after %s: STATUS %q, want Pending: %v", step, status, f)
				}
			}
		})
	}
}

// kubectlWatch is a background kubectl whose stdout lines arrive on lines.
type kubectlWatch struct {
	t     *testing.T
	args  []string
	lines chan []string // the fields of each stdout line; closed when kubectl's stdout ends
}

// startKubectlWatch starts kubectl in the background; it is stopped when t ends.
func startKubectlWatch(t *testing.T, s *framework.Server, args ...string) *kubectlWatch {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	cmd := framework.KubectlCommand(ctx, s, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting kubectl %s: %v", strings.Join(args, " "), err)
	}
	w := &kubectlWatch{t: t, args: args, lines: make(chan []string)}
	readDone := make(chan struct{}) // closed when the reader below has returned
	go func() {
		defer close(readDone)
		defer close(w.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case w.lines <- strings.Fields(sc.Text()):
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-readDone // exec requires reads from the pipe to finish before Wait
		cmd.Wait()
		if t.Failed() {
			t.Logf("kubectl %s stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
	})
	return w
}

// next returns the next line that match accepts, skipping others, or fails the
// test after watchLineTimeout.
func (w *kubectlWatch) next(match func(fields []string) bool) []string {
	w.t.Helper()
	deadline := time.After(watchLineTimeout)
	for {
		select {
		case f, ok := <-w.lines:
			if !ok {
				w.t.Fatalf("kubectl %s stopped printing before the expected line", strings.Join(w.args, " "))
			}
			if match(f) {
				return f
			}
		case <-deadline:
			w.t.Fatalf("kubectl %s: no expected line within %v", strings.Join(w.args, " "), watchLineTimeout)
		}
	}
}
