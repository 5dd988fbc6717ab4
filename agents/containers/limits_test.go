package containers_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/agents/containers/cgroups"
	"github.com/capstan-io/capstan/agents/containers/cgroups/cgroupstest"
)

// hog grows a bytearray by 1 MiB a step to 1 GiB, far beyond a 32Mi limit.
var hog = []string{"python3", "-c", "b = bytearray()\nfor _ in range(1024): b.extend(bytes(1 << 20))\nprint('not killed')"}

func newLimitedProcess(t *testing.T, dir string, cg *cgroups.Manager) *containers.Process {
	t.Helper()
	t.Setenv(shimEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := containers.NewProcess(dir, []string{exe}, cg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readTrim(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestMemoryLimitOOMKilled runs, on this machine's real cgroups, a process
// that allocates far more than its 32Mi limit: the kernel kills it, and its
// status says OOMKilled with exit code 137. Its group is gone afterwards.
// The parent group, removed first, is made again.
func TestMemoryLimitOOMKilled(t *testing.T) {
	cg := cgroupstest.New(t)
	rt := newLimitedProcess(t, t.TempDir(), cg)
	ctx := context.Background()
	// As if another agent sharing the parent had removed it as it exited: Start makes it again.
	if err := cg.RemoveParent(); err != nil {
		t.Fatal(err)
	}
	st, err := rt.Start(ctx, containers.Spec{ID: "hog", Command: hog, Env: []string{"PATH=" + os.Getenv("PATH")},
		Limits: cgroups.Limits{MemoryBytes: 32 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Signal(ctx, "hog", syscall.SIGKILL) })
	if st.Spec.Cgroup == nil || st.Spec.Cgroup.MemoryDir == "" {
		t.Fatalf("no memory cgroup recorded: %+v", st.Spec)
	}
	st = waitState(t, rt, "hog", containers.StateExited)
	if !st.OOMKilled || st.ExitCode != 137 || st.Signal != "SIGKILL" {
		log, _ := os.ReadFile(st.Spec.LogPath)
		t.Fatalf("exit %d signal %q oomKilled %v, want 137 SIGKILL true; log:\n%s", st.ExitCode, st.Signal, st.OOMKilled, log)
	}
	for _, d := range st.Spec.Cgroup.Dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("cgroup %s still exists after the container ended (%v)", d, err)
		}
	}
	if err := rt.Remove(ctx, "hog"); err != nil {
		t.Fatal(err)
	}
}

// TestCPUAndMemoryLimitsWritten: a running container with limits.cpu 100m and
// limits.memory 64Mi is in its groups, whose files hold the limits; a runtime
// made again over the same directory (an agent restart) adopts it, and
// stopping it removes the groups. A limited container that exits by itself is
// not reported OOMKilled.
func TestCPUAndMemoryLimitsWritten(t *testing.T) {
	cg := cgroupstest.New(t)
	dir := t.TempDir()
	rt := newLimitedProcess(t, dir, cg)
	ctx := context.Background()
	st, err := rt.Start(ctx, containers.Spec{ID: "limited", Command: []string{"sleep", "30"}, Env: []string{"PATH=" + os.Getenv("PATH")},
		Limits: cgroups.Limits{MemoryBytes: 64 << 20, CPUMillis: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Signal(ctx, "limited", syscall.SIGKILL) })
	g := st.Spec.Cgroup
	if g == nil || g.Version != cgroups.V1 && g.Version != cgroups.V2 {
		t.Fatalf("cgroup = %+v", g)
	}
	want := map[string]string{}
	if g.Version == cgroups.V1 {
		want["memory.limit_in_bytes"] = "67108864"
		want["cpu.cfs_quota_us"] = "10000"
		want["cpu.cfs_period_us"] = "100000"
	} else {
		want["memory.max"] = "67108864"
		want["cpu.max"] = "10000 100000"
	}
	for file, v := range want {
		found := false
		for _, d := range g.Dirs {
			if _, err := os.Stat(filepath.Join(d, file)); err == nil {
				found = true
				if got := readTrim(t, filepath.Join(d, file)); got != v {
					t.Errorf("%s = %q, want %q", filepath.Join(d, file), got, v)
				}
			}
		}
		if !found {
			t.Errorf("no %s in %v", file, g.Dirs)
		}
	}
	// The container's own process (it exec'd in place of the --enter stage) is in every group.
	running := waitState(t, rt, "limited", containers.StateRunning)
	agenttest.Eventually(t, 10*time.Second, "the --enter stage to exec sleep", func() bool {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(running.PID) + "/comm")
		return strings.TrimSpace(string(comm)) == "sleep"
	})
	for _, d := range g.Dirs {
		procs := strings.Fields(readTrim(t, filepath.Join(d, "cgroup.procs")))
		if !slices.Contains(procs, strconv.Itoa(running.PID)) {
			t.Errorf("%s/cgroup.procs = %v, want pid %d", d, procs, running.PID)
		}
	}

	again := newLimitedProcess(t, dir, cgroupstest.Redetect(t))
	adopted, err := again.Status(ctx, "limited")
	if err != nil || adopted.State != containers.StateRunning || adopted.Spec.Cgroup == nil || adopted.Spec.Cgroup.Dirs[0] != g.Dirs[0] {
		t.Fatalf("adopted %+v (%v)", adopted, err)
	}
	st, err = containers.Stop(ctx, again, "limited", 5*time.Second)
	if err != nil || st.State != containers.StateExited || st.OOMKilled || st.ExitCode != 143 {
		t.Fatalf("stopped: %+v (%v), want exit 143, not OOMKilled", st, err)
	}
	for _, d := range g.Dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("cgroup %s still exists after the container ended (%v)", d, err)
		}
	}
	if err := again.Remove(ctx, "limited"); err != nil {
		t.Fatal(err)
	}
}

// TestLimitedStartErrorRemovesCgroup: a limited container whose command does
// not exist fails to start as before and leaves no group behind (the clean-up
// of cgroupstest.New fails the test if one is left).
func TestLimitedStartErrorRemovesCgroup(t *testing.T) {
	cg := cgroupstest.New(t)
	rt := newLimitedProcess(t, t.TempDir(), cg)
	_, err := rt.Start(context.Background(), containers.Spec{ID: "missing", Command: []string{"no-such-binary-here"},
		Limits: cgroups.Limits{MemoryBytes: 32 << 20, CPUMillis: 100}})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("start of a missing binary: %v", err)
	}
	for _, p := range cg.Parents() {
		if children, _ := filepath.Glob(filepath.Join(p, "*", "cgroup.procs")); len(children) > 0 {
			t.Errorf("groups left after a failed start: %v", children)
		}
	}
}
