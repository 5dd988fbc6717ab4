package framework

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	startAttempts = 3                // a free port can be taken before the server binds it
	readyTimeout  = 30 * time.Second // bound on one start attempt
	stopTimeout   = 15 * time.Second // grace after SIGTERM before SIGKILL
	logTailLines  = 80               // log lines shown when a test fails
)

// errPortTaken marks a start attempt that lost a port to another process.
var errPortTaken = errors.New("framework: port already in use")

// Server is a `capstan server` child process. Its fields are set once by
// StartServer and are read-only afterwards.
type Server struct {
	// URL is the HTTPS base URL, https://127.0.0.1:PORT.
	URL string
	// DataDir is the server's --data-dir.
	DataDir string
	// Kubeconfig is the admin kubeconfig the server wrote into DataDir.
	Kubeconfig string
	// Token is the admin bearer token from DataDir/admin.token.
	Token string
	// PID is the child's process id.
	PID int
	// LogPath is the file that receives the child's stdout and stderr.
	LogPath string

	bin     string   // the capstan binary
	args    []string // its command line, for Restart
	cmd     *exec.Cmd
	client  *http.Client  // trusts the cluster CA; no credentials
	exitc   chan struct{} // closed once the process has exited; waitErr is then set
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// StartServer runs `capstan server` from bin on free loopback ports with a fresh
// data dir and returns once /readyz answers 200 and the admin kubeconfig exists.
// extraArgs are appended to the command line. The server is stopped when the
// test ends; if the test failed, the tail of its log is logged. Under -race,
// a data race reported by the server fails the test.
func StartServer(t testing.TB, bin string, extraArgs ...string) *Server {
	t.Helper()
	return startRetrying(t, bin, "server", "", extraArgs)
}

// StartUp is StartServer for `capstan up`: the hub plus the scheduler,
// controllers and a process node in the one child process.
func StartUp(t testing.TB, bin string, extraArgs ...string) *Server {
	t.Helper()
	return startRetrying(t, bin, "up", "", extraArgs)
}

// seedFiles are the credentials hub replicas of one cluster share: the CA, the
// admin token and the ServiceAccount signing key.
var seedFiles = []string{"ca.crt", "ca.key", "admin.token", "sa.key"}

// StartServerSeeded is StartServer for a further hub replica of a cluster:
// the CA, admin token and ServiceAccount key are copied from seedDir (another
// server's DataDir) first, so both replicas trust and issue the same
// credentials. Pass the same --etcd-servers to both. An empty seedDir seeds
// nothing.
func StartServerSeeded(t testing.TB, bin, seedDir string, extraArgs ...string) *Server {
	t.Helper()
	return startRetrying(t, bin, "server", seedDir, extraArgs)
}

func startRetrying(t testing.TB, bin, sub, seedDir string, extraArgs []string) *Server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s, err := start(t, bin, sub, seedDir, extraArgs)
		if err == nil {
			t.Cleanup(func() { s.cleanup(t) })
			return s
		}
		if attempt == startAttempts || !errors.Is(err, errPortTaken) {
			t.Fatalf("starting capstan (attempt %d of %d): %v", attempt, startAttempts, err)
		}
		t.Logf("starting capstan (attempt %d of %d): %v; retrying on other ports", attempt, startAttempts, err)
	}
}

// start makes one attempt. On error the process, if any, is already gone.
func start(t testing.TB, bin, sub, seedDir string, extraArgs []string) (*Server, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	base := t.TempDir()
	s := &Server{
		URL:     "https://127.0.0.1:" + strconv.Itoa(ports[0]),
		DataDir: filepath.Join(base, "data"),
		LogPath: filepath.Join(base, "capstan.log"),
		exitc:   make(chan struct{}),
	}
	s.Kubeconfig = filepath.Join(s.DataDir, "admin.kubeconfig")
	if seedDir != "" {
		if err := seed(seedDir, s.DataDir); err != nil {
			return nil, err
		}
	}
	s.bin = bin
	s.args = append([]string{sub,
		"--data-dir", s.DataDir,
		"--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(ports[0]),
		"--embedded-etcd-client-url", "http://127.0.0.1:" + strconv.Itoa(ports[1]),
		"--embedded-etcd-peer-url", "http://127.0.0.1:" + strconv.Itoa(ports[2]),
	}, extraArgs...)
	if err := s.launch(); err != nil {
		return nil, err
	}
	return s, nil
}

// Restart runs a stopped (or killed) server again with the same command line:
// the same ports, data dir and credentials. The new process has its own log
// and is stopped when the test ends.
func (s *Server) Restart(t testing.TB) *Server {
	t.Helper()
	r := &Server{URL: s.URL, DataDir: s.DataDir, Kubeconfig: s.Kubeconfig, LogPath: filepath.Join(t.TempDir(), "capstan.log"),
		exitc: make(chan struct{}), bin: s.bin, args: s.args}
	if err := r.launch(); err != nil {
		t.Fatalf("restarting capstan: %v", err)
	}
	t.Cleanup(func() { r.cleanup(t) })
	return r
}

// launch starts the process and waits for it to be ready. On error the
// process, if any, is already gone.
func (s *Server) launch() error {
	logFile, err := os.Create(s.LogPath)
	if err != nil {
		return fmt.Errorf("creating the server log: %w", err)
	}
	defer logFile.Close() // the child holds its own descriptor
	s.cmd = exec.Command(s.bin, s.args...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", s.bin, err)
	}
	s.PID = s.cmd.Process.Pid
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exitc)
	}()

	if err := s.waitReady(); err != nil {
		s.Stop()
		return fmt.Errorf("%w\n%s", err, s.logTail())
	}
	tok, err := os.ReadFile(filepath.Join(s.DataDir, "admin.token"))
	if err != nil {
		s.Stop()
		return fmt.Errorf("reading the admin token: %w", err)
	}
	s.Token = strings.TrimSpace(string(tok))
	return nil
}

// waitReady polls until /readyz is 200 and the admin kubeconfig exists, the
// process exits, or readyTimeout passes.
func (s *Server) waitReady() error {
	deadline := time.After(readyTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		select {
		case <-s.exitc:
			log, _ := os.ReadFile(s.LogPath)
			if bytes.Contains(log, []byte("address already in use")) {
				return fmt.Errorf("capstan exited: %v: %w", s.waitErr, errPortTaken)
			}
			return fmt.Errorf("capstan exited before it was ready: %v", s.waitErr)
		case <-deadline:
			return fmt.Errorf("capstan not ready after %v: %v", readyTimeout, last)
		case <-tick.C:
			if last = s.probeReady(); last == nil {
				return nil
			}
		}
	}
}

func (s *Server) probeReady() error {
	if _, err := os.Stat(s.Kubeconfig); err != nil {
		return fmt.Errorf("no admin kubeconfig yet: %w", err)
	}
	if s.client == nil {
		ca, err := os.ReadFile(filepath.Join(s.DataDir, "ca.crt"))
		if err != nil {
			return fmt.Errorf("reading the cluster CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return errors.New("ca.crt holds no PEM certificate")
		}
		s.client = &http.Client{
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
			Timeout:   10 * time.Second,
		}
	}
	resp, err := s.client.Get(s.URL + "/readyz")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /readyz: %s", resp.Status)
	}
	return nil
}

// HTTPClient returns a client that trusts the server's CA. It sends no
// credentials; set "Authorization: Bearer "+s.Token for authenticated paths.
func (s *Server) HTTPClient() *http.Client { return s.client }

// Get fetches path with the admin token and returns the body of a 200 answer.
func (s *Server) Get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("GET %s: reading the body: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, body.Bytes())
	}
	return body.Bytes(), nil
}

// Stop sends SIGTERM, waits up to 15s for the process to exit, then kills it.
// It reports an unclean exit: the process ending before Stop, an exit status
// other than 0 after SIGTERM (such as 66 for a data race), or needing SIGKILL.
// Stop is idempotent.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		defer func() {
			if s.client != nil {
				s.client.CloseIdleConnections()
			}
		}()
		select {
		case <-s.exitc:
			s.stopErr = fmt.Errorf("capstan exited before Stop: %v", s.waitErr)
			return
		default:
		}
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			s.stopErr = fmt.Errorf("sending SIGTERM: %w", err)
		}
		select {
		case <-s.exitc:
			if s.waitErr != nil && s.stopErr == nil {
				s.stopErr = fmt.Errorf("capstan exited uncleanly after SIGTERM: %w", s.waitErr)
			}
			return
		case <-time.After(stopTimeout):
		}
		s.cmd.Process.Kill()
		s.stopErr = fmt.Errorf("capstan did not exit within %v of SIGTERM; killed", stopTimeout)
		select {
		case <-s.exitc:
		case <-time.After(stopTimeout):
			s.stopErr = fmt.Errorf("capstan (pid %d) did not exit after SIGKILL", s.PID)
		}
	})
	return s.stopErr
}

// Kill ends the process with SIGKILL, as a crash would, and waits for it to
// exit. A killed server counts as stopped: cleanup reports nothing about it.
func (s *Server) Kill() {
	s.stopOnce.Do(func() {
		s.cmd.Process.Kill()
		<-s.exitc
		if s.client != nil {
			s.client.CloseIdleConnections()
		}
	})
}

// seed copies the shared credentials from one data dir into a new one.
func seed(from, to string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return fmt.Errorf("seeding the data dir: %w", err)
	}
	for _, name := range seedFiles {
		b, err := os.ReadFile(filepath.Join(from, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("seeding the data dir: %w", err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o600); err != nil {
			return fmt.Errorf("seeding the data dir: %w", err)
		}
	}
	return nil
}

// cleanup stops the server at the end of a test and reports what went wrong.
func (s *Server) cleanup(t testing.TB) {
	if err := s.Stop(); err != nil {
		t.Errorf("stopping capstan: %v", err)
	}
	log, err := os.ReadFile(s.LogPath)
	if err != nil {
		t.Errorf("reading the capstan log: %v", err)
		return
	}
	if i := bytes.Index(log, []byte("WARNING: DATA RACE")); i >= 0 {
		race := log[i:]
		if len(race) > 32<<10 {
			race = race[:32<<10]
		}
		t.Errorf("capstan reported a data race:\n%s", race)
		return
	}
	if t.Failed() {
		t.Logf("capstan (pid %d) log tail:\n%s", s.PID, s.logTail())
	}
}

// logTail returns the last lines of the server's log.
func (s *Server) logTail() string {
	log, err := os.ReadFile(s.LogPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return strings.Join(lines, "\n")
}

// freePorts asks the kernel for n distinct free loopback ports. They are free
// only until someone else binds them, so StartServer retries.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		defer ln.Close() // hold every port until all are picked, so they differ
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
