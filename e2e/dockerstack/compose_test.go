package dockerstack

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Settings the stack runs with in these tests: short leases and grace
// periods, so that each fault plays out in seconds. docker-compose.yml reads
// them; its defaults are the production ones.
const (
	leaseDuration  = 4 * time.Second
	requestTimeout = 3 * time.Second
)

var stackEnv = map[string]string{
	"CAPSTAN_LEASE_DURATION":            leaseDuration.String(),
	"CAPSTAN_RENEW_DEADLINE":            "3s",
	"CAPSTAN_RETRY_PERIOD":              "500ms",
	"CAPSTAN_NODE_MONITOR_GRACE_PERIOD": "6s",
	"CAPSTAN_POD_EVICTION_TIMEOUT":      "2s",
	"CAPSTAN_NODE_LEASE_RENEW":          "1s",
	"CAPSTAN_NODE_LEASE_DURATION":       "4s",
	"CAPSTAN_ETCD_REQUEST_TIMEOUT":      requestTimeout.String(),
}

// stack is one docker-compose project of the repository's stack.
type stack struct {
	t       *testing.T
	root    string   // repository root, holding docker-compose.yml
	compose []string // "docker compose" or "docker-compose"
	project string
	env     []string
	out     string    // the stack's output dir: admin.kubeconfig
	urls    [2]string // the hub replicas as published on loopback
}

// composeCommand finds Docker and a Compose, or says why the tests cannot run.
func composeCommand() ([]string, string) {
	if _, err := exec.LookPath("docker"); err != nil {
		return nil, "docker is not installed"
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		return nil, "the docker daemon is not reachable: " + err.Error()
	}
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}, ""
	}
	if exec.Command("docker-compose", "version").Run() == nil {
		return []string{"docker-compose"}, ""
	}
	return nil, "neither `docker compose` nor docker-compose is installed"
}

// up builds the images (deploy/prepare, then compose build) and starts the
// stack, removing it, its volumes and its images at the end of t.
func up(t *testing.T) *stack {
	if testing.Short() {
		t.Skip("skipped under -short: builds images and runs the docker-compose stack")
	}
	cmd, why := composeCommand()
	if cmd == nil {
		t.Skip("the docker-compose stack tests need Docker: " + why)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{t: t, root: root, compose: cmd, project: fmt.Sprintf("capstane2e%d", os.Getpid()), out: t.TempDir()}
	ports := freePorts(t, 2)
	for i, p := range ports {
		s.urls[i] = fmt.Sprintf("https://127.0.0.1:%d", p)
	}
	env := map[string]string{
		"CAPSTAN_IMAGE":     s.project,
		"CAPSTAN_STACK_DIR": s.out,
		"CAPSTAN_PORT_1":    fmt.Sprint(ports[0]),
		"CAPSTAN_PORT_2":    fmt.Sprint(ports[1]),
	}
	for k, v := range stackEnv {
		env[k] = v
	}
	s.env = os.Environ()
	for k, v := range env {
		s.env = append(s.env, k+"="+v)
	}

	begun := time.Now()
	prep := exec.Command(filepath.Join(root, "deploy", "prepare"))
	prep.Dir = root
	if out, err := prep.CombinedOutput(); err != nil {
		t.Fatalf("deploy/prepare: %v\n%s", err, out)
	}
	t.Logf("deploy/prepare (static binary and busybox) took %v", time.Since(begun).Round(time.Second))
	t.Cleanup(s.down)
	begun = time.Now()
	s.run(10*time.Minute, "up", "-d", "--build")
	t.Logf("docker compose up -d --build took %v", time.Since(begun).Round(time.Second))
	return s
}

// down removes the stack, printing the services' last logs if t failed.
func (s *stack) down() {
	if s.t.Failed() {
		out, _ := s.exec(time.Minute, "logs", "--no-color", "--tail", "40")
		s.t.Logf("the stack's last logs:\n%s", out)
	}
	if out, err := s.exec(3*time.Minute, "down", "-v", "--rmi", "all", "--remove-orphans", "-t", "5"); err != nil {
		s.t.Errorf("docker compose down: %v\n%s", err, out)
	}
}

// exec runs a compose subcommand of the project.
func (s *stack) exec(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append(append(append([]string{}, s.compose[1:]...), "-p", s.project), args...)
	cmd := exec.CommandContext(ctx, s.compose[0], argv...)
	cmd.Dir = s.root
	cmd.Env = s.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// run is exec that fails t on error.
func (s *stack) run(timeout time.Duration, args ...string) string {
	s.t.Helper()
	out, err := s.exec(timeout, args...)
	if err != nil {
		s.t.Fatalf("docker compose %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// container returns the id of a service's container.
func (s *stack) container(service string) string {
	s.t.Helper()
	id := strings.TrimSpace(s.run(time.Minute, "ps", "-q", service))
	if id == "" {
		s.t.Fatalf("service %s has no container", service)
	}
	return id
}

// docker runs a docker command and returns its output, failing t on error.
func (s *stack) docker(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stop stops services gracefully; start starts them again.
func (s *stack) stop(services ...string) {
	s.t.Helper()
	s.run(2*time.Minute, append([]string{"stop", "-t", "10"}, services...)...)
}

func (s *stack) start(services ...string) {
	s.t.Helper()
	s.run(2*time.Minute, append([]string{"start"}, services...)...)
}

// kill sends SIGKILL to services' containers.
func (s *stack) kill(services ...string) {
	s.t.Helper()
	s.run(time.Minute, append([]string{"kill", "-s", "SIGKILL"}, services...)...)
}

// waitHealthy waits for services' health checks to pass.
func (s *stack) waitHealthy(services ...string) {
	s.t.Helper()
	for _, svc := range services {
		id := s.container(svc)
		agenttest.Eventually(s.t, 2*time.Minute, svc+" healthy", func() bool {
			out, err := exec.Command("docker", "inspect", "-f", "{{.State.Health.Status}}", id).Output()
			return err == nil && strings.TrimSpace(string(out)) == "healthy"
		})
	}
}

// client is the admin's client through replica primary (0 or 1), failing
// over to the other: what the stack's admin.kubeconfig lists.
func (s *stack) client(primary int) *client.Client {
	s.t.Helper()
	cfg, err := client.LoadKubeconfig(filepath.Join(s.out, "admin.kubeconfig"))
	if err != nil {
		s.t.Fatal(err)
	}
	cfg.Server, cfg.FallbackServers = s.urls[primary], []string{s.urls[1-primary]}
	cfg.Timeout = 10 * time.Second
	c, err := client.New(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// processes lists a container's processes (host pids) whose command is cmd.
func (s *stack) processes(container, cmd string) map[string]bool {
	s.t.Helper()
	out := s.docker("top", container, "-o", "pid,args")
	pids := map[string]bool{}
	for _, line := range strings.Split(out, "\n")[1:] {
		pid, args, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && strings.TrimSpace(args) == cmd {
			pids[pid] = true
		}
	}
	return pids
}

func freePorts(t *testing.T, n int) []int {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
