package e2e

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/agenttest"
	"github.com/capstan-io/capstan/apiserver/api"
)

// chaosProxy forwards TCP connections to a target and, while cutting is on,
// closes random live connections, so a client's watches (and requests) die
// at arbitrary moments.
type chaosProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	conns map[net.Conn]net.Conn // client side → server side
	cuts  int

	wg sync.WaitGroup // accept loop, pipes and the cutter
}

func startChaosProxy(t *testing.T, target string) *chaosProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &chaosProxy{ln: ln, target: target, conns: map[net.Conn]net.Conn{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.accept()
	}()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for c, s := range p.conns {
			c.Close()
			s.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *chaosProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c] = s
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(s, c); s.Close() }()
		go func() {
			defer p.wg.Done()
			io.Copy(c, s)
			c.Close()
			p.mu.Lock()
			delete(p.conns, c)
			p.mu.Unlock()
		}()
	}
}

// cut closes each live connection with probability frac.
func (p *chaosProxy) cut(frac float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, s := range p.conns {
		if rand.Float64() < frac {
			c.Close()
			s.Close()
			p.cuts++
		}
	}
}

// cutRandomly cuts connections every 200–800ms until ctx ends.
func (p *chaosProxy) cutRandomly(ctx context.Context) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(200+rand.IntN(600)) * time.Millisecond):
				p.cut(0.5)
			}
		}
	}()
}

// TestControllerManagerWatchChaos scales a Deployment 0 → 50 → 0 while a
// proxy between the controller-manager and the server kills its connections
// at random, and checks that it converges exactly, with no pod too many.
func TestControllerManagerWatchChaos(t *testing.T) {
	c := startCluster(t, 3)
	u, err := url.Parse(c.s.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startChaosProxy(t, u.Host)
	kc, err := os.ReadFile(c.s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	proxied := filepath.Join(t.TempDir(), "proxied.kubeconfig")
	if err := os.WriteFile(proxied, []byte(strings.ReplaceAll(string(kc), u.Host, proxy.ln.Addr().String())), 0o600); err != nil {
		t.Fatal(err)
	}
	// The nodes are simulated and renew no Lease: keep nodelifecycle from
	// marking them unreachable however long the test takes.
	c.process("controller-manager", "controller-manager", "--kubeconfig", proxied, "--leader-elect=false", "--node-monitor-grace-period=1h")
	c.kubectl("create", "deployment", "chaos", "--image=busybox", "--replicas=0")
	defer func() {
		if t.Failed() {
			t.Logf("state:\n%s", c.kubectl("get", "deploy,rs", "-o", "wide"))
		}
	}()
	agenttest.Eventually(t, 20*time.Second, "deployment observed", func() bool {
		return strings.Contains(c.kubectl("get", "rs", "-l", "app=chaos", "-o", "name"), "replicaset")
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	proxy.cutRandomly(ctx)
	// Count the pods ever created: exactly 50 are needed, and a controller
	// that double-creates on a lagging cache makes more.
	created := map[string]bool{}
	var mu sync.Mutex
	count := func() {
		for _, p := range c.pods("default", "chaos") {
			mu.Lock()
			created[p.UID()] = true
			mu.Unlock()
		}
	}
	c.kubectl("scale", "deployment/chaos", "--replicas=50")
	agenttest.Eventually(t, 60*time.Second, "50 pods", func() bool { count(); return len(c.pods("default", "chaos")) == 50 })
	c.converged("default", "chaos", 50, 60*time.Second)
	c.kubectl("rollout", "status", "deployment/chaos", "--timeout=60s")
	count()
	c.kubectl("scale", "deployment/chaos", "--replicas=0")
	agenttest.Eventually(t, 60*time.Second, "0 pods", func() bool { return len(c.pods("default", "chaos")) == 0 })
	cancel()
	proxy.mu.Lock()
	cuts := proxy.cuts
	proxy.mu.Unlock()
	t.Logf("%d connections cut; %d pods created", cuts, len(created))
	if cuts == 0 {
		t.Error("no connection was cut")
	}
	if len(created) > 50 {
		t.Errorf("%d pods were created for 50 replicas", len(created))
	}
	// Still exact once the dust settles.
	time.Sleep(time.Second)
	if n := len(c.pods("default", "chaos")); n != 0 {
		t.Errorf("%d pods left after scaling to 0", n)
	}
	d, err := c.cli.Resource("apps", "v1", "deployments").Namespace("default").Get(c.ctx, "chaos")
	if err != nil || api.Int64(api.Nested(d, "status", "replicas")) != 0 {
		agenttest.Eventually(t, 60*time.Second, "status.replicas 0", func() bool {
			d, err = c.cli.Resource("apps", "v1", "deployments").Namespace("default").Get(c.ctx, "chaos")
			return err == nil && api.Int64(api.Nested(d, "status", "replicas")) == 0
		})
	}
}
