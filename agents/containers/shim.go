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
func ShimMain(args []string) int {
	fs := flag.NewFlagSet("container-shim", flag.ContinueOnError)
	dir := fs.String("dir", "", "the container's state directory")
	run := fs.Bool("run", false, "be the container's parent (internal)")
	if err := fs.Parse(args); err != nil || *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: container-shim --dir DIR")
		return 2
	}
	if *run {
		return runContainer(*dir)
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
			fmt.Fprintln(os.Stderr, "shim exited before the container started; see", filepath.Join(dir, "shim.log"))
			return 1
		case <-deadline:
			fmt.Fprintln(os.Stderr, "container did not start within 30s")
			return 1
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// runContainer is the long-lived shim.
func runContainer(dir string) int {
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
	outs.wait()
	ex := exitRecord{FinishedAt: time.Now().UTC()}
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
	if err := writeJSON(filepath.Join(dir, exitFile), ex); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
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
