package nodeagent

import (
	"testing"

	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/agents/containers/cgroups"
)

// supportRuntime is a fake runtime that reports a fixed cgroups.Support.
type supportRuntime struct {
	containers.Runtime
	s cgroups.Support
}

func (r supportRuntime) LimitSupport() cgroups.Support { return r.s }

func TestUnenforcedMessage(t *testing.T) {
	t.Parallel()
	both := cgroups.Limits{MemoryBytes: 32 << 20, CPUMillis: 100}
	for _, tc := range []struct {
		name    string
		support cgroups.Support
		limits  cgroups.Limits
		want    string
	}{
		{"both enforced", cgroups.Support{Version: cgroups.V1, Memory: true, CPU: true}, both, ""},
		{"no limits set", cgroups.Support{Reason: "no cgroup2 mount"}, cgroups.Limits{}, ""},
		{"cpu only possible", cgroups.Support{Version: cgroups.V1, Memory: true, Reason: "cgroup v1 cpu: no cpu.cfs_quota_us (kernel support missing)"}, both,
			"cpu limit is not enforced on this node: cgroup v1 cpu: no cpu.cfs_quota_us (kernel support missing)"},
		{"cpu only possible, memory limit only", cgroups.Support{Version: cgroups.V1, Memory: true, Reason: "no cpu"}, cgroups.Limits{MemoryBytes: 1}, ""},
		{"nothing possible", cgroups.Support{Reason: "cgroup v2 at /sys/fs/cgroup offers neither memory nor cpu"}, both,
			"memory and cpu limits are not enforced on this node: cgroup v2 at /sys/fs/cgroup offers neither memory nor cpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Agent{cfg: Config{Runtime: supportRuntime{s: tc.support}}, runtimeName: "process"}
			if got := a.unenforced(tc.limits); got != tc.want {
				t.Errorf("unenforced = %q, want %q", got, tc.want)
			}
		})
	}
	a := &Agent{cfg: Config{Runtime: containers.NewFake()}, runtimeName: "fake"}
	if got, want := a.unenforced(both), "memory and cpu limits are not enforced on this node: the fake runtime enforces no limits"; got != want {
		t.Errorf("fake runtime: %q, want %q", got, want)
	}
}
