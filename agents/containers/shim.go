package containers

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// ShimMain is the container shim, run as `capstan container-shim --dir DIR`.
// Without --run it starts itself again with --run in a new session and returns
// once the container's process exists (0) or failed to start (1). With --run it
// is the container's long-lived parent: it runs the command from DIR/spec.json
// in its own process group, writes its output to the log, records pid.json,
// waits, and records exit.json.
//
// A container with a cgroup is started through a third stage, --enter: a
// short-lived copy of the shim, already in the container's process group, that
// moves itself into the cgroup and only then execs the command, so no user
// code runs outside the limits and the shim itself stays outside them.
func ShimMain(args []string) int {
	fs := flag.NewFlagSet("container-shim", flag.ContinueOnError)
	dir := fs.String("dir", "", "the container's state directory")
	run := fs.Bool("run", false, "be the container's parent (internal)")
	enter := fs.String("enter", "", "join the container's cgroup, then exec this resolved command path (internal)")
	if err := fs.Parse(args); err != nil || *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: container-shim --dir DIR")
		return 2
	}
	switch {
	case *enter != "":
		return enterAndExec(*dir, *enter)
	case *run:
		// What runs this shim again: the executable and the arguments before ShimMain's own.
		self := os.Args[:1]
		if n := len(os.Args) - len(args); n > 0 {
			self = os.Args[:n]
		}
		return runContainer(*dir, self)
	}
	return launch(*dir)
}

// launch detaches the long-lived shim and waits for the container to start.
func launch(dir string) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	logf, err := os.OpenFile(filepath.Join(dir, "shim.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer logf.Close()
	cmd := exec.Command(exe, append(os.Args[1:], "--run")...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // reaps the shim only if it dies early
	deadline := time.After(30 * time.Second)
	for {
		var ex exitRecord
		if readJSON(filepath.Join(dir, exitFile), &ex) == nil && ex.StartError != "" {
			fmt.Fprintln(os.Stderr, ex.StartError)
			return 1
		}
		if _, err := os.Stat(filepath.Join(dir, pidFile)); err == nil {
			return 0
		}
		select {
		case <-exited:
			if _, err := os.Stat(filepath.Join(dir, pidFile)); err == nil {
				return 0
			}
			// The shim may have recorded why it could not start just before it
			// exited, after this loop last looked.
			if readJSON(filepath.Join(dir, exitFile), &ex) == nil && ex.StartError != "" {
				fmt.Fprintln(os.Stderr, ex.StartError)
				return 1
			}
			fmt.Fprintln(os.Stderr, "shim exited before the container started; see", filepath.Join(dir, "shim.log"))
			return 1
		case <-deadline:
			fmt.Fprintln(os.Stderr, "container did not start within 30s")
			return 1
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// runContainer is the long-lived shim; self is the argv that runs ShimMain.
func runContainer(dir string, self []string) int {
	var spec Spec
	if err := readJSON(filepath.Join(dir, specFile), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	logw, err := newLogWriter(spec.LogPath, defaultMaxLogBytes)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer logw.Close()
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Env = spec.Env
	if spec.Cgroup != nil && cmd.Err == nil {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// The --enter stage gets the shim's environment (what runs the shim
		// may need it) and execs cmd.Path with the container's.
		cmd = exec.Command(exe, append(self[1:], "--dir", dir, "--enter", cmd.Path)...)
	}
	cmd.Dir = spec.Dir
	if cmd.Dir == "" {
		cmd.Dir = dir
	}
	// The container writes into pipes the shim drains itself, so that waiting for
	// the process does not also wait for whatever else still holds its output.
	outs, err := newPipes(logw)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd.Stdout, cmd.Stderr = outs.stdout.w, outs.stderr.w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	outs.closeWriters()
	if err != nil {
		outs.wait()
		spec.Cgroup.Remove()
		writeJSON(filepath.Join(dir, exitFile), exitRecord{ExitCode: 128, StartError: startError(spec, err), FinishedAt: time.Now().UTC()})
		return 1
	}
	_, tick, _ := procStat(cmd.Process.Pid)
	if err := writeJSON(filepath.Join(dir, pidFile), pidRecord{PID: cmd.Process.Pid, ShimPID: os.Getpid(), StartTick: tick, StartedAt: time.Now().UTC()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	werr := cmd.Wait()
	// As when a container's first process ends, nothing else in it keeps running.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	ex := exitRecord{FinishedAt: time.Now().UTC()}
	if spec.Cgroup != nil {
		ex.OOMKilled = spec.Cgroup.OOMKilled()
		spec.Cgroup.Kill() // also what left the process group
	}
	outs.wait()
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		ws, _ := ee.Sys().(syscall.WaitStatus)
		ex.ExitCode = ws.ExitStatus()
		if ws.Signaled() {
			ex.ExitCode, ex.Signal = 128+int(ws.Signal()), signalName(ws.Signal())
		}
	default:
		ex.ExitCode = 128
	}
	// A zero exit is a success whatever the OOM killer did to other processes in it.
	ex.OOMKilled = ex.OOMKilled && ex.ExitCode != 0
	if err := spec.Cgroup.Remove(); err != nil {
		fmt.Fprintln(os.Stderr, err) // Process.Remove tries again
	}
	if err := writeJSON(filepath.Join(dir, exitFile), ex); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// enterAndExec is the --enter stage: it joins the container's cgroup and
// becomes the container's command (same pid, process group and stdio).
func enterAndExec(dir, path string) int {
	var spec Spec
	if err := readJSON(filepath.Join(dir, specFile), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "capstan: reading the container's spec:", err)
		return 128
	}
	if err := spec.Cgroup.Enter(os.Getpid()); err != nil {
		fmt.Fprintln(os.Stderr, "capstan:", err)
		return 128
	}
	err := syscall.Exec(path, spec.Command, spec.Env)
	fmt.Fprintf(os.Stderr, "capstan: exec %s: %v\n", path, err)
	return 128
}

func startError(spec Spec, err error) string {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("executable %q not found in $PATH", spec.Command[0])
	}
	return err.Error()
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return s.String()
}
