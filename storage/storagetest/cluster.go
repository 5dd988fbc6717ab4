package storagetest

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/capstan-io/capstan/storage/etcd3"
)

// Cluster is a multi-member etcd on loopback whose members a test can stop and restart.
type Cluster struct {
	t       testing.TB
	configs []etcd3.EmbeddedConfig
	mu      sync.Mutex
	members []*etcd3.Embedded // nil while stopped
	starts  sync.WaitGroup    // restarts under way; cleanup waits for them
}

// RunCluster starts an n-member cluster in t's temp dirs; it is stopped when the test ends.
func RunCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	ports := freePorts(t, 2*n)
	c := &Cluster{t: t, members: make([]*etcd3.Embedded, n)}
	var initial []string
	for i := range n {
		name := fmt.Sprintf("m%d", i)
		cfg := etcd3.EmbeddedConfig{
			Dir: t.TempDir(), Name: name, UnsafeNoFsync: true,
			ClientURL: fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]),
			PeerURL:   fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
		}
		c.configs = append(c.configs, cfg)
		initial = append(initial, name+"="+cfg.PeerURL)
	}
	for i := range c.configs {
		c.configs[i].InitialCluster = strings.Join(initial, ",")
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.start(i) }()
	}
	wg.Wait()
	t.Cleanup(func() {
		c.starts.Wait()
		for i := range n {
			c.Stop(i)
		}
	})
	for _, err := range errs {
		if err != nil {
			t.Fatalf("starting etcd cluster: %v", err)
		}
	}
	return c
}

func (c *Cluster) start(i int) error {
	e, err := etcd3.StartEmbedded(c.configs[i])
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.members[i] = e
	c.mu.Unlock()
	return nil
}

// Endpoints are every member's client URL.
func (c *Cluster) Endpoints() []string {
	var out []string
	for _, cfg := range c.configs {
		out = append(out, cfg.ClientURL)
	}
	return out
}

// Stop stops member i (a no-op if it is stopped).
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	e := c.members[i]
	c.members[i] = nil
	c.mu.Unlock()
	if e != nil {
		e.Close()
	}
}

// Restart starts a stopped member i again on its data dir and ports. With no
// quorum among the running members it does not wait for the member to serve.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	c.starts.Add(1)
	go func() {
		defer c.starts.Done()
		if err := c.start(i); err != nil {
			c.t.Errorf("restarting member %d: %v", i, err)
		}
	}()
}

// freePorts reserves n loopback ports by binding and releasing them.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
