package cgroups

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// This machine's mountinfo, as the brief describes it: v1 hierarchies under a
// tmpfs and a cgroup2 mount that offers only hugetlb.
const hybridMountInfo = `31 23 0:28 / %[1]s rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / %[1]s/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / %[1]s/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / %[1]s/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / %[1]s/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / %[1]s/unified rw,relatime - cgroup2 cgroup2 rw
`

const hybridProcCgroup = `9:name=systemd:/
8:pids:/
4:memory:/process_api/abc
2:cpuacct:/
1:cpu:/
0::/
`

func TestParseMountInfo(t *testing.T) {
	t.Parallel()
	got := parseMountInfo(`22 1 8:1 / / rw - ext4 /dev/sda1 rw
32 31 0:29 /docker/x /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct
41 31 0:38 / /mnt/with\040space rw shared:9 - cgroup2 cgroup2 rw,nsdelegate
garbage line`)
	want := []mount{
		{root: "/docker/x", point: "/sys/fs/cgroup/cpu,cpuacct", fstype: "cgroup", opts: []string{"rw", "cpu", "cpuacct"}},
		{root: "/", point: "/mnt/with space", fstype: "cgroup2", opts: []string{"rw", "nsdelegate"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseMountInfo = %+v, want %+v", got, want)
	}
	own := parseProcCgroup(hybridProcCgroup + "3:cpu,cpuacct:/x\n")
	if own["memory"] != "/process_api/abc" || own[""] != "/" || own["cpuacct"] != "/x" || own["name=systemd"] != "/" {
		t.Fatalf("parseProcCgroup = %v", own)
	}
}

func TestOwnDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, root, path, want string
	}{
		{"host view", "/", "/process_api/abc", "/cg/process_api/abc"},
		{"container with its own root", "/docker/x", "/docker/x/sub", "/cg/sub"},
		{"path outside the mount's root", "/docker/x", "/other", "/cg"},
		{"sibling name sharing a prefix", "/docker/x", "/docker/xy", "/cg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ownDir(mount{root: tc.root, point: "/cg"}, tc.path); got != tc.want {
				t.Errorf("ownDir = %q, want %q", got, tc.want)
			}
		})
	}
}

// layout writes files (path → content) under root; a path ending in "/" is a directory.
func layout(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDetectSimulatedCgroupfs runs detection against fake mountinfo text
// whose mount points are temporary directories laid out like cgroupfs (the
// kernel's control files are written by the test, as mkdir would make them).
func TestDetectSimulatedCgroupfs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		mountinfo  string // %[1]s is the temporary root
		procCgroup string
		files      map[string]string
		want       Support
		wantReason string // a substring of want.Reason
	}{
		{
			name: "hybrid: v2 offers only hugetlb, v1 memory and cpu are writable", mountinfo: hybridMountInfo, procCgroup: hybridProcCgroup,
			files: map[string]string{
				"unified/cgroup.controllers":                           "hugetlb\n",
				"memory/process_api/abc/t/memory.limit_in_bytes":       "9223372036854771712\n",
				"cpu/t/cpu.cfs_quota_us":                               "-1\n",
				"memory/process_api/abc/t/memory.memsw.limit_in_bytes": "9223372036854771712\n",
			},
			want: Support{Version: V1, Memory: true, CPU: true},
		},
		{
			name: "v1 without CFS bandwidth control enforces memory only", mountinfo: hybridMountInfo, procCgroup: hybridProcCgroup,
			files: map[string]string{
				"unified/cgroup.controllers":                     "hugetlb\n",
				"memory/process_api/abc/t/memory.limit_in_bytes": "9223372036854771712\n",
				"cpu/": "",
			},
			want: Support{Version: V1, Memory: true}, wantReason: "no cpu.cfs_quota_us",
		},
		{
			name:       "v2 with memory and cpu",
			mountinfo:  "41 23 0:38 / %[1]s rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n",
			procCgroup: "0::/agent\n",
			files:      map[string]string{"agent/cgroup.controllers": "cpuset cpu io memory pids\n"},
			want:       Support{Version: V2, Memory: true, CPU: true},
		},
		{
			name:       "v2 offering memory only",
			mountinfo:  "41 23 0:38 / %[1]s rw,relatime - cgroup2 cgroup2 rw\n",
			procCgroup: "0::/\n",
			files:      map[string]string{"cgroup.controllers": "memory pids\n"},
			want:       Support{Version: V2, Memory: true}, wantReason: "offers only memory",
		},
		{
			name:       "v2 whose subtree_control cannot be written (the agent's group holds processes)",
			mountinfo:  "41 23 0:38 / %[1]s rw,relatime - cgroup2 cgroup2 rw\n",
			procCgroup: "0::/agent\n",
			files:      map[string]string{"agent/cgroup.controllers": "cpu memory\n", "agent/cgroup.subtree_control/": ""},
			want:       Support{}, wantReason: "cannot enable memory,cpu",
		},
		{
			name:       "no cgroup mounts at all",
			mountinfo:  "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
			procCgroup: "0::/\n",
			want:       Support{}, wantReason: "no cgroup2 mount",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			layout(t, root, tc.files)
			m := Detect(Config{Parent: "t", MountInfo: strings.ReplaceAll(tc.mountinfo, "%[1]s", root), ProcCgroup: tc.procCgroup})
			got := m.Support()
			if got.Version != tc.want.Version || got.Memory != tc.want.Memory || got.CPU != tc.want.CPU {
				t.Fatalf("support = %+v, want %+v", got, tc.want)
			}
			if tc.wantReason == "" && got.Reason != "" || !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", got.Reason, tc.wantReason)
			}
		})
	}
}

// TestV2WritesSimulatedCgroupfs checks the v2 file writing against a
// temporary directory laid out like a cgroup2 hierarchy. It is a simulation:
// the kernel would create the control files on mkdir and apply the limits;
// here the test creates them and only reads back what was written.
func TestV2WritesSimulatedCgroupfs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	layout(t, root, map[string]string{
		"agent/cgroup.controllers": "cpuset cpu io memory pids\n",
		// Files the kernel makes in every new group, which Create writes only if present.
		"agent/capstan/pod1_c_0/memory.swap.max":  "max\n",
		"agent/capstan/pod1_c_0/memory.oom.group": "0\n",
	})
	m := Detect(Config{MountInfo: "41 23 0:38 / " + root + " rw - cgroup2 cgroup2 rw\n", ProcCgroup: "0::/agent\n"})
	if s := m.Support(); s.Version != V2 || !s.Memory || !s.CPU {
		t.Fatalf("support = %+v", s)
	}
	g, err := m.Create("pod1_c_0", Limits{MemoryBytes: 32 << 20, CPUMillis: 250})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "agent", "capstan", "pod1_c_0")
	if want := (&Group{Version: V2, Dirs: []string{dir}, MemoryDir: dir}); !reflect.DeepEqual(g, want) {
		t.Fatalf("group = %+v, want %+v", g, want)
	}
	for file, want := range map[string]string{
		"agent/cgroup.subtree_control":            "+memory +cpu",
		"agent/capstan/cgroup.subtree_control":    "+memory +cpu",
		"agent/capstan/pod1_c_0/memory.max":       "33554432",
		"agent/capstan/pod1_c_0/memory.swap.max":  "0",
		"agent/capstan/pod1_c_0/memory.oom.group": "1",
		"agent/capstan/pod1_c_0/cpu.max":          "25000 100000",
	} {
		if b, err := os.ReadFile(filepath.Join(root, file)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", file, b, err, want)
		}
	}
	if err := g.Enter(4242); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs")); string(b) != "4242" {
		t.Errorf("cgroup.procs = %q", b)
	}
	if g.OOMKilled() {
		t.Error("OOMKilled without memory.events")
	}
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 4\noom 1\noom_kill 0\n"), 0o644)
	if g.OOMKilled() {
		t.Error("OOMKilled with oom_kill 0")
	}
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n"), 0o644)
	if !g.OOMKilled() {
		t.Error("not OOMKilled with oom_kill 1")
	}
	// A CPU-only limit still makes a group, without memory files.
	g2, err := m.Create("pod1_d_0", Limits{CPUMillis: 1})
	if err != nil || g2.MemoryDir != "" {
		t.Fatalf("cpu-only group = %+v (%v)", g2, err)
	}
	if b, _ := os.ReadFile(filepath.Join(g2.Dirs[0], "cpu.max")); string(b) != "1000 100000" {
		t.Errorf("1m cpu: cpu.max = %q, want the kernel's 1ms minimum", b)
	}
	if g3, err := m.Create("pod1_e_0", Limits{}); g3 != nil || err != nil {
		t.Errorf("no limits: group %+v (%v), want none", g3, err)
	}
}

func TestSupportString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    Support
		want string
	}{
		{Support{Version: V1, Memory: true, CPU: true}, "memory,cpu (cgroup v1)"},
		{Support{Version: V2, Memory: true, Reason: "cgroup v2 at /x offers only memory"}, "memory (cgroup v2); cgroup v2 at /x offers only memory"},
		{Support{Reason: "no cgroup2 mount"}, "none (no cgroup2 mount)"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}
