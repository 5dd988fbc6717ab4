package containers_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/containers"
)

// The test binary doubles as the shim when this variable is set.
const shimEnv = "CAPSTAN_TEST_CONTAINER_SHIM"

func TestMain(m *testing.M) {
	if os.Getenv(shimEnv) == "1" {
		os.Exit(containers.ShimMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func newProcess(t *testing.T, dir string) *containers.Process {
	t.Helper()
	return newLimitedProcess(t, dir, nil)
}

func start(t *testing.T, rt containers.Runtime, id string, script string) containers.Status {
	t.Helper()
	st, err := rt.Start(context.Background(), containers.Spec{ID: id, Command: []string{"/bin/sh", "-c", script}, Env: []string{"GREETING=hello", "PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatalf("start %s: %v", id, err)
	}
	t.Cleanup(func() { rt.Signal(context.Background(), id, syscall.SIGKILL) })
	return st
}

// waitState polls a container until it reaches state, bounded.
func waitState(t *testing.T, rt containers.Runtime, id string, want containers.State) containers.Status {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := rt.Status(context.Background(), id)
		if err == nil && st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: state %s (%v), want %s", id, st.State, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessLifecycle(t *testing.T) {
	ctx := context.Background()
	rt := newProcess(t, t.TempDir())
	for _, tc := range []struct {
		name, script string
		wantCode     int
		wantSignal   string
		stop         time.Duration // 0: let it exit by itself
	}{
		{"exit 0", "echo $GREETING; exit 0", 0, "", 0},
		{"exit 3", "echo oops >&2; exit 3", 3, "", 0},
		{"stopped by SIGTERM", "sleep 30", 143, "SIGTERM", 5 * time.Second},
		{"ignores SIGTERM, killed after grace", "trap '' TERM; while :; do sleep 0.05; done", 137, "SIGKILL", 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "-")
			id = strings.ReplaceAll(id, ",", "")
			st := start(t, rt, id, tc.script)
			if st.PID == 0 || st.StartedAt.IsZero() {
				t.Fatalf("started without pid: %+v", st)
			}
			if tc.stop > 0 {
				waitState(t, rt, id, containers.StateRunning)
				if _, err := containers.Stop(ctx, rt, id, tc.stop); err != nil {
					t.Fatal(err)
				}
			}
			st = waitState(t, rt, id, containers.StateExited)
			if st.ExitCode != tc.wantCode || st.Signal != tc.wantSignal || st.FinishedAt.IsZero() {
				t.Fatalf("exit %d signal %q, want %d %q", st.ExitCode, st.Signal, tc.wantCode, tc.wantSignal)
			}
		})
	}
	log, err := os.ReadFile(mustLogPath(t, rt, "exit-0"))
	if err != nil || !strings.Contains(string(log), " stdout F hello\n") {
		t.Fatalf("log %q (%v), want a CRI-format stdout line", log, err)
	}
	if _, err := rt.Start(ctx, containers.Spec{ID: "missing", Command: []string{"no-such-binary-here"}}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("start of a missing binary: %v", err)
	}
	if err := rt.Remove(ctx, "exit-0"); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Status(ctx, "exit-0"); !errors.Is(err, containers.ErrNotFound) {
		t.Fatalf("removed container: %v", err)
	}
}

func mustLogPath(t *testing.T, rt containers.Runtime, id string) string {
	t.Helper()
	st, err := rt.Status(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return st.Spec.LogPath
}

// TestAdoptionAndOutsideKill: a new runtime over the same directory (an agent
// restart) sees running containers; a process killed from outside is reported
// with its signal, and one whose shim died too is reported unknown.
func TestAdoptionAndOutsideKill(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first := newProcess(t, dir)
	a := start(t, first, "a", "sleep 30")
	b := start(t, first, "b", "sleep 30")
	second := newProcess(t, dir) // the agent restarted
	list, err := second.List(ctx)
	if err != nil || len(list) != 2 || list[0].State != containers.StateRunning || list[0].PID != a.PID {
		t.Fatalf("adopted %+v (%v)", list, err)
	}
	syscall.Kill(a.PID, syscall.SIGKILL)
	if st := waitState(t, second, "a", containers.StateExited); st.Signal != "SIGKILL" || st.ExitCode != 137 {
		t.Fatalf("killed from outside: %+v", st)
	}
	var shim struct{ ShimPID int }
	raw, _ := os.ReadFile(filepath.Join(dir, "b", "pid.json"))
	if err := jsonUnmarshal(raw, &shim); err != nil || shim.ShimPID == 0 {
		t.Fatalf("pid.json %s: %v", raw, err)
	}
	syscall.Kill(shim.ShimPID, syscall.SIGKILL)
	syscall.Kill(b.PID, syscall.SIGKILL)
	waitState(t, second, "b", containers.StateUnknown)
}

func TestFakeRuntime(t *testing.T) {
	ctx := context.Background()
	rt := containers.NewFake()
	st := start(t, rt, "f", "ignored by the fake runtime")
	if st.State != containers.StateRunning {
		t.Fatalf("fake container %+v", st)
	}
	st, err := containers.Stop(ctx, rt, "f", time.Second)
	if err != nil || st.State != containers.StateExited || st.ExitCode != 143 {
		t.Fatalf("stopped fake container %+v %v", st, err)
	}
}

var jsonUnmarshal = json.Unmarshal
