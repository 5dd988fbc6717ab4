package containers

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"syscall"
	"time"
)

var _ Runtime = (*Fake)(nil)

// Fake is a simulated runtime for scale tests: containers "run" without any
// process and exit only when signalled (SIGTERM → 143, SIGKILL → 137). Its
// name says so everywhere it is used.
type Fake struct {
	mu         sync.Mutex
	containers map[string]*Status
	nextPID    int
}

// NewFake returns an empty simulated runtime.
func NewFake() *Fake { return &Fake{containers: map[string]*Status{}, nextPID: 100000} }

// Start records a running container.
func (f *Fake) Start(ctx context.Context, spec Spec) (Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.containers[spec.ID]; ok {
		return Status{}, fmt.Errorf("containers: %s exists", spec.ID)
	}
	f.nextPID++
	st := &Status{Spec: spec, State: StateRunning, PID: f.nextPID, StartedAt: time.Now().UTC()}
	f.containers[spec.ID] = st
	return *st, nil
}

// Status reports one simulated container.
func (f *Fake) Status(ctx context.Context, id string) (Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.containers[id]
	if !ok {
		return Status{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return *st, nil
}

// List reports every simulated container.
func (f *Fake) List(ctx context.Context) ([]Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Status, 0, len(f.containers))
	for _, st := range f.containers {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.ID < out[j].Spec.ID })
	return out, nil
}

// Signal ends a running simulated container on SIGTERM, SIGKILL or SIGINT.
func (f *Fake) Signal(ctx context.Context, id string, sig syscall.Signal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.containers[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if st.State == StateRunning && (sig == syscall.SIGTERM || sig == syscall.SIGKILL || sig == syscall.SIGINT) {
		st.State, st.ExitCode, st.Signal, st.FinishedAt = StateExited, 128+int(sig), signalName(sig), time.Now().UTC()
	}
	return nil
}

// Remove forgets an exited simulated container.
func (f *Fake) Remove(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st, ok := f.containers[id]; ok && st.State == StateRunning {
		return fmt.Errorf("containers: %s is running", id)
	}
	delete(f.containers, id)
	return nil
}
