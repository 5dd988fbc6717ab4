// Package cgroupstest gives tests a real cgroups.Manager under a parent group
// of their own, skipping the test where the machine does not allow one, and
// removing every group the test made when it ends.
package cgroupstest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/containers/cgroups"
)

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Redetect detects again under the parent New uses for t, as a restarted
// agent would; the clean-up New registered covers it.
func Redetect(t testing.TB) *cgroups.Manager {
	return cgroups.Detect(cgroups.Config{Parent: fmt.Sprintf("capstan-test-%d-%s", os.Getpid(), unsafe.ReplaceAllString(t.Name(), "_"))})
}

// New detects what the machine allows under a parent named for the test and
// skips the test unless both memory and cpu limits can be enforced. Register
// it before anything that starts containers, so that its clean-up runs after
// theirs: it waits for the containers' groups to go (their shims remove
// them), then kills what is left, removes those groups and the parent.
func New(t testing.TB) *cgroups.Manager {
	t.Helper()
	m := Redetect(t)
	if s := m.Support(); !s.Memory || !s.CPU {
		m.RemoveParent()
		t.Skipf("this machine does not let the test enforce memory and cpu limits through cgroups: %s", s)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for m.RemoveParent() != nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond) // shims remove their groups as their containers end
		}
		for _, p := range m.Parents() {
			children, _ := filepath.Glob(filepath.Join(p, "*", "cgroup.procs"))
			for _, c := range children {
				g := cgroups.Group{Version: m.Support().Version, Dirs: []string{filepath.Dir(c)}}
				t.Errorf("cgroup %s outlived its container; removing it: %v", g.Dirs[0], g.Remove())
			}
		}
		if err := m.RemoveParent(); err != nil {
			t.Errorf("removing the test's parent cgroups: %v", err)
		}
	})
	return m
}
