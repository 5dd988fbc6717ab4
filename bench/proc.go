package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stopGrace is how long a server gets to exit after SIGTERM before SIGKILL.
const stopGrace = 15 * time.Second

// freePort asks the kernel for a free port on 127.0.0.1. Another process could
// take it before we use it; on loopback in a benchmark that risk is accepted.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func freeURL() (string, error) {
	p, err := freePort()
	if err != nil {
		return "", err
	}
	return "http://127.0.0.1:" + strconv.Itoa(p), nil
}

// moduleRoot is the directory holding the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module; run from the capstan checkout")
	}
	return filepath.Dir(gomod), nil
}

// buildCapstan builds ./cmd/capstan into dir and returns the binary's path.
func buildCapstan(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "capstan")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/capstan")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/capstan: %w\n%s", err, out)
	}
	return bin, nil
}

// serverProc is one running `capstan server`.
type serverProc struct {
	cmd     *exec.Cmd
	dataDir string
	url     string        // https://127.0.0.1:port
	started time.Time     // just before exec
	logPath string        // the child's stderr
	donec   chan struct{} // closed when the child has been reaped
	err     error         // Wait's result, valid after donec
}

// startServer execs bin with `server` and args, serving on a free port from dataDir.
// The child is killed if this process dies (Pdeathsig) and on stop.
func startServer(bin, dataDir string, args ...string) (*serverProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	logPath := logPathFor(dataDir)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own descriptor
	argv := append([]string{"server", "--data-dir", dataDir, "--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(port), "--log-level", "warn"}, args...)
	cmd := exec.Command(bin, argv...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &serverProc{cmd: cmd, dataDir: dataDir, logPath: logPath, url: fmt.Sprintf("https://127.0.0.1:%d", port), donec: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting capstan server: %w", err)
	}
	go func() { // reaps the child; stop waits for it
		defer close(p.donec)
		p.err = cmd.Wait()
	}()
	return p, nil
}

// pid is the child's process id.
func (p *serverProc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the child has already exited.
func (p *serverProc) exited() bool {
	select {
	case <-p.donec:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, waits up to stopGrace, then SIGKILLs; it returns once the
// child is reaped. It reports whether the child exited on its own after SIGTERM.
func (p *serverProc) stop() (graceful bool) {
	if p.exited() {
		return false
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.donec:
		return true
	case <-time.After(stopGrace):
	}
	_ = p.cmd.Process.Kill()
	<-p.donec
	return false
}

// rssMiB reads the child's resident set (VmRSS) and peak (VmHWM) in MiB.
func rssMiB(pid int) (rss, hwm float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, hwm, nil
}

// logPathFor is where servers on dataDir write stderr; restarts append to it.
func logPathFor(dataDir string) string { return dataDir + ".log" }

// logLines returns the child's log, at most limit lines (the first ones), and the total count.
func (p *serverProc) logLines(limit int) (lines []string, total int) {
	return readLog(p.logPath, limit)
}

func readLog(path string, limit int) (lines []string, total int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0
	}
	for l := range strings.SplitSeq(strings.TrimRight(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		total++
		if len(lines) < limit {
			lines = append(lines, l)
		}
	}
	return lines, total
}

// raiseFileLimit lifts RLIMIT_NOFILE to its hard maximum; a thousand watchers need it.
func raiseFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	return lim.Cur, nil
}

// cpuSample is CPU time used so far by the server and by this process (which
// includes the benchmark's etcd).
type cpuSample struct{ server, self time.Duration }

// clockTick is USER_HZ, the unit of /proc/<pid>/stat times; it is 100 on Linux.
const clockTick = 10 * time.Millisecond

func sampleCPU(pid int) cpuSample {
	var s cpuSample
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// Fields after the parenthesised command name; utime and stime are fields 14 and 15.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			f := strings.Fields(string(b[i+1:]))
			if len(f) > 12 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				k, _ := strconv.ParseInt(f[12], 10, 64)
				s.server = time.Duration(u+k) * clockTick
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return s
}

// cores is CPU use between two samples over wall time d, in cores.
func (s cpuSample) cores(since cpuSample, d time.Duration) (server, self float64) {
	if d <= 0 {
		return 0, 0
	}
	return (s.server - since.server).Seconds() / d.Seconds(), (s.self - since.self).Seconds() / d.Seconds()
}
