package controllers

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/capstan-io/capstan/agents/leaderelection"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Config configures a controller-manager.
type Config struct {
	Client *client.Client
	// Controllers selects controllers as kube-controller-manager does: "*"
	// is every controller, "foo" enables foo, "-foo" disables it. Empty means "*".
	Controllers []string

	// Options is leader election; the Lease defaults to
	// kube-system/capstan-controller-manager.
	leaderelection.Options

	// NodeMonitorGracePeriod is how long a node Lease may go unrenewed before
	// the node is marked unreachable (default 40s).
	NodeMonitorGracePeriod time.Duration
	// PodEvictionTimeout is the default toleration of unreachable and
	// not-ready nodes for pods that declare none (default 300s).
	PodEvictionTimeout time.Duration

	// Syncs is how many objects each controller syncs at once, by controller
	// name; a controller missing here uses its own default.
	Syncs map[string]int

	Logger *slog.Logger
}

// Names lists every controller, in start order.
var Names = []string{"replicaset", "deployment", "garbagecollector", "namespace", "nodelifecycle", "serviceaccount"}

// Validate applies defaults and checks the configuration.
func (c *Config) Validate() error {
	if c.Client == nil {
		return errors.New("controllers: no client")
	}
	c.Options.Default("capstan-controller-manager")
	if c.NodeMonitorGracePeriod == 0 {
		c.NodeMonitorGracePeriod = 40 * time.Second
	}
	if c.PodEvictionTimeout == 0 {
		c.PodEvictionTimeout = 300 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	_, err := Enabled(c.Controllers)
	return err
}

// Enabled resolves a --controllers list into the controllers to run.
func Enabled(spec []string) ([]string, error) {
	if len(spec) == 0 {
		spec = []string{"*"}
	}
	on := map[string]bool{}
	star := false
	for _, s := range spec {
		s = strings.TrimSpace(s)
		name, off := strings.CutPrefix(s, "-")
		switch {
		case s == "*":
			star = true
			continue
		case !slices.Contains(Names, name):
			return nil, fmt.Errorf("controllers: unknown controller %q (known: %s)", name, strings.Join(Names, ", "))
		}
		on[name] = !off
	}
	var out []string
	for _, n := range Names {
		if v, set := on[n]; set && v || !set && star {
			out = append(out, n)
		}
	}
	return out, nil
}
