package scheduler

import (
	"errors"
	"log/slog"
	"time"

	"github.com/capstan-io/capstan/agents/leaderelection"
	"github.com/capstan-io/capstan/apiserver/client"
)

// DefaultSchedulerName is the schedulerName this scheduler serves by default;
// pods with an empty schedulerName are served too.
const DefaultSchedulerName = "default-scheduler"

// Config is the scheduler's settings; zero values take defaults in Validate.
type Config struct {
	// Client reaches the hub.
	Client *client.Client
	// SchedulerName is the schedulerName served; "" means default-scheduler.
	SchedulerName string
	// BindWorkers is how many bindings are written at once; 0 means 32.
	BindWorkers int
	// FlushInterval is how often unschedulable pods are retried even when
	// nothing changed; 0 means 60s.
	FlushInterval time.Duration
	// RetryBase and RetryMax bound each pod's retry backoff; 0 means 1s and 10s.
	RetryBase, RetryMax time.Duration

	// Options is leader election; the Lease defaults to
	// kube-system/capstan-scheduler.
	leaderelection.Options

	// Logger receives decisions and failures; nil discards.
	Logger *slog.Logger
}

// Validate applies defaults and checks cfg.
func (c *Config) Validate() error {
	if c.Client == nil {
		return errors.New("scheduler: no client")
	}
	if c.SchedulerName == "" {
		c.SchedulerName = DefaultSchedulerName
	}
	if c.BindWorkers == 0 {
		c.BindWorkers = 32
	}
	if c.FlushInterval == 0 {
		c.FlushInterval = 60 * time.Second
	}
	if c.RetryBase == 0 {
		c.RetryBase = time.Second
	}
	if c.RetryMax == 0 {
		c.RetryMax = 10 * time.Second
	}
	c.Options.Default("capstan-scheduler")
	if c.BindWorkers < 1 {
		return errors.New("scheduler: bind workers must be at least 1")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}
