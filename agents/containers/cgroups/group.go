package cgroups

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits is what one container may use; a zero field means no limit.
type Limits struct {
	// MemoryBytes is resources.limits.memory.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// CPUMillis is resources.limits.cpu in thousandths of a core.
	CPUMillis int64 `json:"cpuMillis,omitempty"`
}

// cpuPeriod is the CFS period in microseconds, as the kubelet uses.
const cpuPeriod = 100000

// minCPUQuota is the smallest quota the kernel accepts (1 ms), as the kubelet clamps it.
const minCPUQuota = 1000

// cpuQuota is the CFS quota in microseconds per cpuPeriod for millis.
func cpuQuota(millis int64) int64 { return max(millis*cpuPeriod/1000, minCPUQuota) }

// Group is one container's control group: plain data, recorded with the
// container so a shim or a restarted agent can use it.
type Group struct {
	Version Version `json:"version"`
	// Dirs are the directories the container's processes join: one for v2,
	// one per hierarchy (memory, cpu) for v1.
	Dirs []string `json:"dirs"`
	// MemoryDir holds the memory controller's files; "" when memory is not limited.
	MemoryDir string `json:"memoryDir,omitempty"`
}

// Create makes the group for container id and writes l into it. It returns
// nil when none of l can be enforced (or l is zero).
func (m *Manager) Create(id string, l Limits) (*Group, error) {
	if m == nil {
		return nil, nil
	}
	if strings.ContainsAny(id, "/\\") || id == "" || id == "." || id == ".." {
		return nil, fmt.Errorf("cgroups: invalid id %q", id)
	}
	mem := l.MemoryBytes > 0 && m.support.Memory
	cpu := l.CPUMillis > 0 && m.support.CPU
	if !mem && !cpu {
		return nil, nil
	}
	g := &Group{Version: m.support.Version}
	var files []kv
	switch m.support.Version {
	case V2:
		d := filepath.Join(m.v2, id)
		g.Dirs = []string{d}
		if mem {
			g.MemoryDir = d
			files = append(files, kv{d, "memory.max", strconv.FormatInt(l.MemoryBytes, 10), true},
				kv{d, "memory.swap.max", "0", false},
				// As the kubelet on v2: an OOM kill ends the whole container.
				kv{d, "memory.oom.group", "1", false})
		}
		if cpu {
			files = append(files, kv{d, "cpu.max", fmt.Sprintf("%d %d", cpuQuota(l.CPUMillis), cpuPeriod), true})
		}
	case V1:
		if mem {
			d := filepath.Join(m.memory, id)
			g.Dirs, g.MemoryDir = append(g.Dirs, d), d
			files = append(files, kv{d, "memory.limit_in_bytes", strconv.FormatInt(l.MemoryBytes, 10), true},
				// Set after memory.limit_in_bytes: the kernel keeps memsw >= the limit.
				kv{d, "memory.memsw.limit_in_bytes", strconv.FormatInt(l.MemoryBytes, 10), false})
		}
		if cpu {
			d := filepath.Join(m.cpu, id)
			g.Dirs = append(g.Dirs, d)
			files = append(files, kv{d, "cpu.cfs_period_us", strconv.Itoa(cpuPeriod), true},
				kv{d, "cpu.cfs_quota_us", strconv.FormatInt(cpuQuota(l.CPUMillis), 10), true})
		}
	default:
		return nil, nil
	}
	for _, d := range g.Dirs {
		err := os.Mkdir(d, 0o755)
		if errors.Is(err, os.ErrNotExist) {
			if err = m.ensureParents(); err == nil {
				err = os.Mkdir(d, 0o755)
			}
		}
		if err != nil && !errors.Is(err, os.ErrExist) {
			g.Remove()
			return nil, fmt.Errorf("cgroups: %w", err)
		}
	}
	for _, f := range files {
		if err := f.write(); err != nil {
			g.Remove()
			return nil, err
		}
	}
	return g, nil
}

// kv is one control file to write; optional files are skipped when the
// kernel lacks them (no swap accounting, an older kernel).
type kv struct {
	dir, name, value string
	required         bool
}

func (f kv) write() error {
	p := filepath.Join(f.dir, f.name)
	if !f.required {
		if _, err := os.Stat(p); err != nil {
			return nil
		}
	}
	if err := os.WriteFile(p, []byte(f.value), 0o644); err != nil {
		if !f.required {
			return nil
		}
		return fmt.Errorf("cgroups: writing %s: %w", p, err)
	}
	return nil
}

// Enter moves process pid (the whole process, all its threads) into g.
// Children it starts afterwards are born in g.
func (g *Group) Enter(pid int) error {
	for _, d := range g.Dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("cgroups: joining %s: %w", d, err)
		}
	}
	return nil
}

// OOMKilled reports whether the kernel's OOM killer killed a process in g:
// oom_kill in memory.events (v2) or memory.oom_control (v1, kernel 4.13+);
// on an older v1 kernel, a hit memory limit (memory.failcnt), which the
// caller pairs with a SIGKILL.
func (g *Group) OOMKilled() bool {
	if g == nil || g.MemoryDir == "" {
		return false
	}
	file := "memory.oom_control"
	if g.Version == V2 {
		file = "memory.events"
	}
	if n, ok := counter(filepath.Join(g.MemoryDir, file), "oom_kill"); ok {
		return n > 0
	}
	if g.Version == V1 {
		b, err := os.ReadFile(filepath.Join(g.MemoryDir, "memory.failcnt"))
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return err == nil && n > 0
	}
	return false
}

// counter reads "key N" from a flat-keyed control file.
func counter(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, _ := strings.Cut(s.Text(), " ")
		if k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Procs lists the processes in g.
func (g *Group) Procs() []int {
	var out []int
	for _, d := range g.Dirs {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// Kill sends SIGKILL to every process in g (v2 cgroup.kill where the kernel has it).
func (g *Group) Kill() {
	if g.Version == V2 && len(g.Dirs) == 1 {
		if os.WriteFile(filepath.Join(g.Dirs[0], "cgroup.kill"), []byte("1"), 0o644) == nil {
			return
		}
	}
	for _, pid := range g.Procs() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Remove kills what is left in g and deletes its directories, waiting (up to
// a few seconds) for killed processes to leave. Removing a removed group is
// not an error.
func (g *Group) Remove() error {
	if g == nil {
		return nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var errs []error
		for _, d := range g.Dirs {
			if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		if len(errs) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroups: removing: %w", errors.Join(errs...))
		}
		g.Kill()
		time.Sleep(10 * time.Millisecond) // killed processes leave the group asynchronously
	}
}
