package leaderelection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/capstan-io/capstan/agents/internal/wait"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// ErrLeadershipLost is returned by Run when the leader could not renew within
// RenewDeadline. The caller should exit (and be restarted), as client-go's
// RunOrDie does.
var ErrLeadershipLost = errors.New("leaderelection: leadership lost")

// Config names the Lease and the timings.
type Config struct {
	// Client reaches the hub.
	Client *client.Client
	// Namespace and Name locate the Lease.
	Namespace, Name string
	// Identity is this candidate's unique name (for example hostname_uuid).
	Identity string
	// LeaseDuration is how long others wait, from the last change they saw,
	// before taking the Lease; 0 means 15s.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before it
	// gives up; 0 means 10s. It must be less than LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts; 0 means 2s.
	RetryPeriod time.Duration
	// ReleaseOnCancel clears the holder when Run's ctx ends while leading, so
	// a standby need not wait out the lease.
	ReleaseOnCancel bool
	// Logger receives transitions; nil discards.
	Logger *slog.Logger
}

// Validate applies defaults and checks the timings.
func (c *Config) Validate() error {
	if c.LeaseDuration == 0 {
		c.LeaseDuration = 15 * time.Second
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = 10 * time.Second
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = 2 * time.Second
	}
	switch {
	case c.Client == nil:
		return errors.New("leaderelection: no client")
	case c.Name == "" || c.Namespace == "":
		return errors.New("leaderelection: lease namespace and name are required")
	case c.Identity == "":
		return errors.New("leaderelection: identity is required")
	case c.RenewDeadline >= c.LeaseDuration:
		return errors.New("leaderelection: renew deadline must be less than the lease duration")
	case c.RetryPeriod >= c.RenewDeadline:
		return errors.New("leaderelection: retry period must be less than the renew deadline")
	}
	return nil
}

// Callbacks are what the elector runs.
type Callbacks struct {
	// OnStartedLeading runs in its own goroutine once the Lease is won; its ctx
	// ends when leadership ends. If it returns early, Run stops leading and
	// returns its error.
	OnStartedLeading func(ctx context.Context) error
	// OnStoppedLeading runs after OnStartedLeading has returned.
	OnStoppedLeading func()
	// OnNewLeader is told each new holder it observes (including itself).
	OnNewLeader func(identity string)
}

// Elector campaigns for one Lease.
type Elector struct {
	cfg    Config
	leases *client.ResourceClient
	log    *slog.Logger

	leading  atomic.Bool
	leader   atomic.Value // string: the last holder observed
	observed record       // the last record seen; owned by Run's goroutine
	seenAt   time.Time    // when observed last changed, by our clock
}

// New validates cfg and returns an Elector.
func New(cfg Config) (*Elector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Elector{
		cfg:    cfg,
		leases: cfg.Client.Resource("coordination.k8s.io", "v1", "leases").Namespace(cfg.Namespace),
		log:    log.With("lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity),
	}
	e.leader.Store("")
	return e, nil
}

// IsLeader reports whether this candidate currently leads.
func (e *Elector) IsLeader() bool { return e.leading.Load() }

// Leader is the last holder this candidate observed.
func (e *Elector) Leader() string { return e.leader.Load().(string) }

// Run campaigns until it wins, leads until ctx ends or renewal fails, and
// returns: ctx's error after a clean stop, ErrLeadershipLost, or the error
// OnStartedLeading returned.
func (e *Elector) Run(ctx context.Context, cb Callbacks) error {
	if !e.acquire(ctx, cb) {
		return ctx.Err()
	}
	e.leading.Store(true)
	e.log.Info("started leading")
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	workErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if cb.OnStartedLeading != nil {
			workErr <- cb.OnStartedLeading(lctx)
		} else {
			<-lctx.Done()
			workErr <- nil
		}
	}()
	err := e.renew(lctx, workErr)
	cancel()
	wg.Wait()
	e.leading.Store(false)
	if e.cfg.ReleaseOnCancel && !errors.Is(err, ErrLeadershipLost) {
		e.release()
	}
	e.log.Info("stopped leading", "err", err)
	if cb.OnStoppedLeading != nil {
		cb.OnStoppedLeading()
	}
	if err == nil || errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// acquire retries until the Lease is ours or ctx ends.
func (e *Elector) acquire(ctx context.Context, cb Callbacks) bool {
	for {
		ok, err := e.tryAcquireOrRenew(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Debug("acquire attempt failed", "err", err)
		}
		e.notifyLeader(cb)
		if ok {
			return true
		}
		if !wait.Sleep(ctx, wait.Jitter(e.cfg.RetryPeriod, 0.2)) {
			return false
		}
	}
}

// renew keeps the Lease until ctx ends, renewal fails for RenewDeadline, or
// the work returns; it returns why it stopped.
func (e *Elector) renew(ctx context.Context, workErr <-chan error) error {
	last := time.Now()
	t := time.NewTicker(e.cfg.RetryPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-workErr:
			if err == nil {
				err = errors.New("leaderelection: OnStartedLeading returned while leading")
			}
			return err
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, e.cfg.RenewDeadline-time.Since(last))
		ok, err := e.tryAcquireOrRenew(rctx)
		cancel()
		switch {
		case ok:
			last = time.Now()
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil:
			// The Lease was read and someone else holds it: we lost it already.
			e.log.Error("lease taken by another candidate", "holder", e.observed.Holder)
			return ErrLeadershipLost
		case time.Since(last) >= e.cfg.RenewDeadline:
			e.log.Error("failed to renew lease", "err", err)
			return ErrLeadershipLost
		}
	}
}

// tryAcquireOrRenew makes one attempt to hold the Lease.
func (e *Elector) tryAcquireOrRenew(ctx context.Context) (bool, error) {
	o, err := e.leases.Get(ctx, e.cfg.Name)
	if apierrors.IsNotFound(err) {
		lease := api.Object{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"name": e.cfg.Name, "namespace": e.cfg.Namespace}}
		r := record{Holder: e.cfg.Identity, DurationSecs: seconds(e.cfg.LeaseDuration), AcquireTime: now(), RenewTime: now()}
		r.write(lease)
		if _, err := e.leases.Create(ctx, lease); err != nil {
			return false, fmt.Errorf("creating lease: %w", err)
		}
		e.see(r)
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading lease: %w", err)
	}
	cur := readRecord(o)
	if cur != e.observed {
		e.see(cur)
	}
	if cur.Holder != "" && cur.Holder != e.cfg.Identity && time.Since(e.seenAt) < e.cfg.LeaseDuration {
		return false, nil // someone else holds a live lease
	}
	next := cur
	if cur.Holder != e.cfg.Identity {
		next.Transitions++
		next.AcquireTime = now()
	}
	next.Holder = e.cfg.Identity
	next.RenewTime = now()
	next.DurationSecs = seconds(e.cfg.LeaseDuration)
	next.write(o)
	if _, err := e.leases.Update(ctx, o, ""); err != nil {
		return false, fmt.Errorf("updating lease: %w", err)
	}
	e.see(next)
	return true, nil
}

func (e *Elector) see(r record) {
	e.observed = r
	e.seenAt = time.Now()
}

func (e *Elector) notifyLeader(cb Callbacks) {
	h := e.observed.Holder
	if old := e.leader.Swap(h); old != h && h != "" {
		e.log.Info("new leader observed", "leader", h)
		if cb.OnNewLeader != nil {
			cb.OnNewLeader(h)
		}
	}
}

// release clears the holder so a standby can take over at once.
func (e *Elector) release() {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.RenewDeadline)
	defer cancel()
	o, err := e.leases.Get(ctx, e.cfg.Name)
	if err != nil {
		e.log.Warn("release: reading lease", "err", err)
		return
	}
	r := readRecord(o)
	if r.Holder != e.cfg.Identity {
		return
	}
	r.Holder = ""
	r.DurationSecs = 1
	r.RenewTime = now()
	r.write(o)
	if _, err := e.leases.Update(ctx, o, ""); err != nil {
		e.log.Warn("release: updating lease", "err", err)
	}
}

// DefaultIdentity is "<host name>_<random>", unique to this process.
func DefaultIdentity() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}

// RunWhileLeading runs fn only while this process holds cfg's Lease, releasing
// it when ctx ends; an empty Identity gets DefaultIdentity. It is how agents
// with replicas (the scheduler, the controller-manager) run.
func RunWhileLeading(ctx context.Context, cfg Config, fn func(context.Context) error) error {
	if cfg.Identity == "" {
		cfg.Identity = DefaultIdentity()
	}
	cfg.ReleaseOnCancel = true
	el, err := New(cfg)
	if err != nil {
		return err
	}
	return el.Run(ctx, Callbacks{OnStartedLeading: fn})
}
