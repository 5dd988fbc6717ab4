package containers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/capstan-io/capstan/agents/containers/cgroups"
)

var _ Runtime = (*Process)(nil)

// Files in each container's directory.
const (
	specFile = "spec.json"
	pidFile  = "pid.json"  // written by the shim once the process runs
	exitFile = "exit.json" // written by the shim once the process has ended
	logFile  = "output.log"
)

// Process runs containers as local processes, each under its own shim.
type Process struct {
	dir  string           // one subdirectory per container
	shim []string         // argv that runs the shim, before its own flags
	cg   *cgroups.Manager // makes the containers' cgroups; nil enforces no limits
}

// NewProcess returns a runtime keeping its state under dir. shim is the command
// that runs ShimMain, such as {"/usr/local/bin/capstan", "container-shim"}. cg
// (from cgroups.Detect, once per agent) enforces containers' limits; nil
// enforces none.
func NewProcess(dir string, shim []string, cg *cgroups.Manager) (*Process, error) {
	if len(shim) == 0 {
		return nil, errors.New("containers: no shim command")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("containers: %w", err)
	}
	return &Process{dir: dir, shim: shim, cg: cg}, nil
}

// pidRecord is pid.json.
type pidRecord struct {
	PID       int       `json:"pid"`
	ShimPID   int       `json:"shimPid"`
	StartTick uint64    `json:"startTick"` // /proc/<pid>/stat starttime, to tell a reused pid apart
	StartedAt time.Time `json:"startedAt"`
}

// exitRecord is exit.json.
type exitRecord struct {
	ExitCode   int       `json:"exitCode"`
	Signal     string    `json:"signal,omitempty"`
	FinishedAt time.Time `json:"finishedAt"`
	// StartError is set when the command could not be started at all.
	StartError string `json:"startError,omitempty"`
	// OOMKilled: the container's cgroup recorded an OOM kill.
	OOMKilled bool `json:"oomKilled,omitempty"`
}

// LimitSupport reports which limits this runtime enforces, and why not the others.
func (p *Process) LimitSupport() cgroups.Support { return p.cg.Support() }

func (p *Process) containerDir(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, "/\\") || id == "." || id == ".." {
		return "", fmt.Errorf("containers: invalid id %q", id)
	}
	return filepath.Join(p.dir, id), nil
}

// Start writes the spec and runs the shim, which returns once the process exists.
func (p *Process) Start(ctx context.Context, spec Spec) (Status, error) {
	if len(spec.Command) == 0 {
		return Status{}, errors.New("containers: empty command")
	}
	dir, err := p.containerDir(spec.ID)
	if err != nil {
		return Status{}, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return Status{}, fmt.Errorf("containers: %w", err)
	}
	if spec.LogPath == "" {
		spec.LogPath = filepath.Join(dir, logFile)
	}
	// The group exists before the shim starts, so the container's process
	// joins it before it runs any of its own code.
	if spec.Cgroup, err = p.cg.Create(spec.ID, spec.Limits); err != nil {
		os.RemoveAll(dir)
		return Status{}, fmt.Errorf("containers: %s: %w", spec.ID, err)
	}
	if err := writeJSON(filepath.Join(dir, specFile), spec); err != nil {
		spec.Cgroup.Remove()
		return Status{}, err
	}
	cmd := exec.CommandContext(ctx, p.shim[0], append(p.shim[1:], "--dir", dir)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		st, serr := p.Status(ctx, spec.ID)
		if serr == nil && st.State == StateExited {
			return st, fmt.Errorf("containers: %s: %s", spec.ID, strings.TrimSpace(string(out)))
		}
		return Status{}, fmt.Errorf("containers: shim for %s: %v: %s", spec.ID, err, strings.TrimSpace(string(out)))
	}
	return p.Status(ctx, spec.ID)
}

// Status reads a container's files and checks its process.
func (p *Process) Status(ctx context.Context, id string) (Status, error) {
	dir, err := p.containerDir(id)
	if err != nil {
		return Status{}, err
	}
	var st Status
	if err := readJSON(filepath.Join(dir, specFile), &st.Spec); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Status{}, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return Status{}, err
	}
	var pr pidRecord
	havePID := readJSON(filepath.Join(dir, pidFile), &pr) == nil
	st.PID, st.StartedAt = pr.PID, pr.StartedAt
	var ex exitRecord
	if readJSON(filepath.Join(dir, exitFile), &ex) == nil {
		st.State, st.ExitCode, st.Signal, st.FinishedAt, st.OOMKilled = StateExited, ex.ExitCode, ex.Signal, ex.FinishedAt, ex.OOMKilled
		return st, nil
	}
	switch {
	case havePID && alive(pr.PID, pr.StartTick):
		st.State = StateRunning
	case alive(pr.ShimPID, 0):
		st.State = StateRunning // the shim is about to record the exit
	default:
		st.State = StateUnknown
	}
	return st, nil
}

// List reports every container under the runtime's directory.
func (p *Process) List(ctx context.Context) ([]Status, error) {
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		st, err := p.Status(ctx, e.Name())
		if err != nil {
			continue // a directory whose spec is not written yet
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.ID < out[j].Spec.ID })
	return out, nil
}

// Signal sends sig to the container's process group.
func (p *Process) Signal(ctx context.Context, id string, sig syscall.Signal) error {
	st, err := p.Status(ctx, id)
	if err != nil {
		return err
	}
	if st.State != StateRunning || st.PID == 0 {
		return nil
	}
	if err := syscall.Kill(-st.PID, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("containers: signalling %s: %w", id, err)
	}
	return nil
}

// Remove deletes an exited container's cgroup (its shim normally has) and directory.
func (p *Process) Remove(ctx context.Context, id string) error {
	st, err := p.Status(ctx, id)
	if err != nil {
		return err
	}
	if st.State == StateRunning {
		return fmt.Errorf("containers: %s is running", id)
	}
	if err := st.Spec.Cgroup.Remove(); err != nil {
		return fmt.Errorf("containers: %s: %w", id, err)
	}
	dir, _ := p.containerDir(id)
	return os.RemoveAll(dir)
}

// alive reports whether pid runs (and, when startTick is set, is the same process).
func alive(pid int, startTick uint64) bool {
	if pid <= 0 {
		return false
	}
	state, tick, err := procStat(pid)
	if err != nil || state == "Z" || state == "X" {
		return false
	}
	return startTick == 0 || tick == startTick
}

// procStat reads a process's state letter and start time from /proc/<pid>/stat.
func procStat(pid int) (string, uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, err
	}
	// The command name (field 2) may contain spaces; fields after it start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", 0, fmt.Errorf("malformed /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", 0, fmt.Errorf("malformed /proc stat")
	}
	tick, err := strconv.ParseUint(f[19], 10, 64) // field 22 overall
	return f[0], tick, err
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
