package containers

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/capstan-io/capstan/agents/containers/cgroups"
)

// Spec is one container to run.
type Spec struct {
	// ID names the container uniquely on this node (the agent uses <pod uid>_<container>_<attempt>).
	ID string `json:"id"`
	// Command is the argv to run; Command[0] is looked up on PATH.
	Command []string `json:"command"`
	// Env is the environment, KEY=VALUE, in addition to nothing: containers do not inherit the agent's.
	Env []string `json:"env"`
	// Dir is the working directory; empty means the container's own directory.
	Dir string `json:"dir,omitempty"`
	// LogPath receives stdout and stderr; empty means <container dir>/output.log.
	LogPath string `json:"logPath,omitempty"`
	// Labels are opaque to the runtime; the agent uses them to map containers back to pods.
	Labels map[string]string `json:"labels,omitempty"`
	// Limits are the container's memory and CPU limits, enforced as far as
	// the runtime's cgroups.Manager allows (see LimitSupport).
	Limits cgroups.Limits `json:"limits,omitzero"`
	// Cgroup is set by the runtime: the group the container runs in, if any.
	Cgroup *cgroups.Group `json:"cgroup,omitempty"`
}

// State is a container's life stage.
type State string

// Container states.
const (
	StateRunning State = "running"
	StateExited  State = "exited"
	// StateUnknown: the process is gone without a recorded exit (its shim was killed too).
	StateUnknown State = "unknown"
)

// Status is what the runtime knows of a container.
type Status struct {
	Spec       Spec      `json:"spec"`
	State      State     `json:"state"`
	PID        int       `json:"pid,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	ExitCode   int       `json:"exitCode"`
	// Signal names the signal that ended the process, if one did.
	Signal string `json:"signal,omitempty"`
	// OOMKilled: the kernel's OOM killer killed a process in the container's
	// cgroup (it hit its memory limit).
	OOMKilled bool `json:"oomKilled,omitempty"`
}

// ErrNotFound: the runtime has no container with that id.
var ErrNotFound = errors.New("containers: no such container")

// Runtime starts, signals and reports containers.
type Runtime interface {
	// Start runs spec; it returns once the process exists.
	Start(ctx context.Context, spec Spec) (Status, error)
	// Status reports one container.
	Status(ctx context.Context, id string) (Status, error)
	// List reports every container the runtime knows, running or not.
	List(ctx context.Context) ([]Status, error)
	// Signal sends sig to the container's whole process group.
	Signal(ctx context.Context, id string, sig syscall.Signal) error
	// Remove forgets an exited container and its files (but not its log, if LogPath is outside).
	Remove(ctx context.Context, id string) error
}

// Stop asks a container to end with SIGTERM and kills it with SIGKILL after
// grace, returning once it has exited or ctx ends.
func Stop(ctx context.Context, rt Runtime, id string, grace time.Duration) (Status, error) {
	st, err := rt.Status(ctx, id)
	if err != nil || st.State != StateRunning {
		return st, err
	}
	if err := rt.Signal(ctx, id, syscall.SIGTERM); err != nil {
		return st, err
	}
	deadline := time.Now().Add(grace)
	killed := false
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if st, err = rt.Status(ctx, id); err != nil || st.State != StateRunning {
			return st, err
		}
		if !killed && time.Now().After(deadline) {
			if err := rt.Signal(ctx, id, syscall.SIGKILL); err != nil {
				return st, err
			}
			killed = true
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-tick.C:
		}
	}
}
