package cgroups

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Version is the cgroup interface a Manager uses.
type Version int

// Versions; None means limits are not enforced at all.
const (
	None Version = 0
	V1   Version = 1
	V2   Version = 2
)

// Support is what a Manager enforces.
type Support struct {
	Version Version
	// Memory and CPU say which limits are enforced.
	Memory, CPU bool
	// Reason says why a limit is not enforced; empty when both are.
	Reason string
}

// String describes s for logs, events and the Node annotation.
func (s Support) String() string {
	var what []string
	if s.Memory {
		what = append(what, "memory")
	}
	if s.CPU {
		what = append(what, "cpu")
	}
	if len(what) == 0 {
		return "none (" + s.Reason + ")"
	}
	out := strings.Join(what, ",") + fmt.Sprintf(" (cgroup v%d)", s.Version)
	if s.Reason != "" {
		out += "; " + s.Reason
	}
	return out
}

// Config configures Detect.
type Config struct {
	// Parent names the capstan-owned group made under the agent's own cgroup;
	// "" means "capstan". Tests use their own name and remove it after.
	Parent string
	// MountInfo and ProcCgroup are the text of /proc/self/mountinfo and
	// /proc/self/cgroup; "" reads those files. Tests set them to describe a
	// simulated hierarchy in a temporary directory.
	MountInfo, ProcCgroup string
}

// Manager creates per-container groups under the parent Detect chose.
type Manager struct {
	support Support
	v2      string // v2: the parent group's directory
	enable  string // v2: what the parent's cgroup.subtree_control gets, such as "+memory +cpu"
	memory  string // v1: the parent in the memory hierarchy ("" if not enforced)
	cpu     string // v1: the parent in the cpu hierarchy ("" if not enforced)
}

// Support reports what m enforces; a nil Manager enforces nothing.
func (m *Manager) Support() Support {
	if m == nil {
		return Support{Reason: "the runtime manages no cgroups"}
	}
	return m.support
}

// mount is one line of /proc/self/mountinfo.
type mount struct {
	root, point, fstype string
	opts                []string // super options, such as "rw", "memory"
}

// parseMountInfo reads the cgroup and cgroup2 mounts from mountinfo text.
func parseMountInfo(text string) []mount {
	var out []mount
	for _, line := range strings.Split(text, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || (g[0] != "cgroup" && g[0] != "cgroup2") {
			continue
		}
		out = append(out, mount{root: unescape(f[3]), point: unescape(f[4]), fstype: g[0], opts: strings.Split(g[2], ",")})
	}
	return out
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and backslash.
func unescape(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// parseProcCgroup maps each v1 controller (and "" for the v2 hierarchy) to
// this process's path in it, from /proc/self/cgroup text.
func parseProcCgroup(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// ownDir is the directory of this process's group below m: its path in the
// hierarchy, relative to the mount's root. A path outside the mount's root
// (a container that sees the host's paths) falls back to the mount point.
func ownDir(m mount, path string) string {
	rel, ok := strings.CutPrefix(path, m.root)
	if m.root == "/" {
		rel, ok = path, true
	}
	if !ok || rel != "" && !strings.HasPrefix(rel, "/") {
		rel = ""
	}
	return filepath.Join(m.point, rel)
}

// Detect finds what this process may enforce and makes the parent group. It
// never fails: what it cannot use is reported in the Manager's Support.
func Detect(cfg Config) *Manager {
	if cfg.Parent == "" {
		cfg.Parent = "capstan"
	}
	if cfg.MountInfo == "" {
		b, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			return &Manager{support: Support{Reason: "cannot read /proc/self/mountinfo: " + err.Error()}}
		}
		cfg.MountInfo = string(b)
	}
	if cfg.ProcCgroup == "" {
		b, err := os.ReadFile("/proc/self/cgroup")
		if err != nil {
			return &Manager{support: Support{Reason: "cannot read /proc/self/cgroup: " + err.Error()}}
		}
		cfg.ProcCgroup = string(b)
	}
	mounts, own := parseMountInfo(cfg.MountInfo), parseProcCgroup(cfg.ProcCgroup)
	v2 := detectV2(mounts, own, cfg.Parent)
	if v2.support.Memory && v2.support.CPU {
		return v2
	}
	v1 := detectV1(mounts, own, cfg.Parent)
	if count(v1.support) > count(v2.support) {
		if v2.v2 != "" {
			os.Remove(v2.v2) // made while probing; unused
		}
		if v1.support.Reason != "" && v2.support.Reason != "" {
			v1.support.Reason += "; " + v2.support.Reason
		}
		return v1
	}
	if count(v2.support) == 0 {
		v2.support.Version = None
		v2.support.Reason = strings.TrimPrefix(v2.support.Reason+"; "+v1.support.Reason, "; ")
	}
	return v2
}

func count(s Support) int {
	n := 0
	for _, b := range []bool{s.Memory, s.CPU} {
		if b {
			n++
		}
	}
	return n
}

// detectV2 tries the cgroup2 hierarchy this process is in.
func detectV2(mounts []mount, own map[string]string, parent string) *Manager {
	path, ok := own[""]
	if !ok {
		return &Manager{support: Support{Reason: "no cgroup v2 hierarchy in /proc/self/cgroup"}}
	}
	i := slices.IndexFunc(mounts, func(m mount) bool { return m.fstype == "cgroup2" })
	if i < 0 {
		return &Manager{support: Support{Reason: "no cgroup2 mount"}}
	}
	dir := ownDir(mounts[i], path)
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return &Manager{support: Support{Reason: "cgroup v2: " + err.Error()}}
	}
	avail := strings.Fields(string(b))
	var want []string
	for _, c := range []string{"memory", "cpu"} {
		if slices.Contains(avail, c) {
			want = append(want, c)
		}
	}
	if len(want) == 0 {
		return &Manager{support: Support{Version: V2, Reason: fmt.Sprintf("cgroup v2 at %s offers neither memory nor cpu (cgroup.controllers: %q)", mounts[i].point, strings.TrimSpace(string(b)))}}
	}
	p := filepath.Join(dir, parent)
	enable := "+" + strings.Join(want, " +")
	// Both the agent's own group and the parent must pass the controllers down.
	// The kernel refuses the first with EBUSY when the agent's group holds
	// processes (the "no internal processes" rule) unless it is the root.
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(enable), 0o644); err != nil {
		return &Manager{support: Support{Version: V2, Reason: fmt.Sprintf("cgroup v2: cannot enable %s in %s: %v (run the agent in a cgroup it may delegate, e.g. a namespace root)", strings.Join(want, ","), dir, err)}}
	}
	if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return &Manager{support: Support{Version: V2, Reason: "cgroup v2: " + err.Error()}}
	}
	if err := os.WriteFile(filepath.Join(p, "cgroup.subtree_control"), []byte(enable), 0o644); err != nil {
		return &Manager{v2: p, support: Support{Version: V2, Reason: fmt.Sprintf("cgroup v2: cannot enable %s in %s: %v", strings.Join(want, ","), p, err)}}
	}
	m := &Manager{v2: p, enable: enable, support: Support{Version: V2, Memory: slices.Contains(want, "memory"), CPU: slices.Contains(want, "cpu")}}
	if !m.support.Memory || !m.support.CPU {
		m.support.Reason = fmt.Sprintf("cgroup v2 at %s offers only %s", mounts[i].point, strings.Join(want, ","))
	}
	return m
}

// detectV1 tries the v1 memory and cpu hierarchies.
func detectV1(mounts []mount, own map[string]string, parent string) *Manager {
	m := &Manager{support: Support{Version: V1}}
	var why []string
	try := func(ctrl, probe string) string {
		i := slices.IndexFunc(mounts, func(m mount) bool { return m.fstype == "cgroup" && slices.Contains(m.opts, ctrl) })
		path, ok := own[ctrl]
		if i < 0 || !ok {
			why = append(why, "no cgroup v1 "+ctrl+" hierarchy")
			return ""
		}
		p := filepath.Join(ownDir(mounts[i], path), parent)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			why = append(why, "cgroup v1 "+ctrl+": "+err.Error())
			return ""
		}
		if _, err := os.Stat(filepath.Join(p, probe)); err != nil {
			why = append(why, fmt.Sprintf("cgroup v1 %s: no %s (kernel support missing)", ctrl, probe))
			os.Remove(p)
			return ""
		}
		return p
	}
	m.memory = try("memory", "memory.limit_in_bytes")
	m.cpu = try("cpu", "cpu.cfs_quota_us")
	m.support.Memory, m.support.CPU = m.memory != "", m.cpu != ""
	m.support.Reason = strings.Join(why, "; ")
	if count(m.support) == 0 {
		m.support.Version = None
	}
	return m
}

// Parents lists the parent groups' directories.
func (m *Manager) Parents() []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, d := range []string{m.v2, m.memory, m.cpu} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// ensureParents makes the parent groups again: another agent sharing them
// may have removed them when it stopped.
func (m *Manager) ensureParents() error {
	for _, d := range m.Parents() {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cgroups: %w", err)
		}
	}
	if m.v2 != "" && m.enable != "" {
		if err := os.WriteFile(filepath.Join(m.v2, "cgroup.subtree_control"), []byte(m.enable), 0o644); err != nil {
			return fmt.Errorf("cgroups: %w", err)
		}
	}
	return nil
}

// RemoveParent deletes the parent groups Detect made; it fails while a
// container's group is still in one. The node agent calls it as it exits,
// ignoring that failure (running containers keep their groups and a later
// agent, which makes the parents again, adopts them); tests check it.
func (m *Manager) RemoveParent() error {
	if m == nil {
		return nil
	}
	var errs []error
	for _, d := range m.Parents() {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
