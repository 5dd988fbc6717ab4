package leaderelection_test

import (
	"context"
	"testing"
	"time"

	"github.com/capstan-io/capstan/agents/leaderelection"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
)

const (
	lease = 1500 * time.Millisecond
	renew = 1000 * time.Millisecond
	retry = 100 * time.Millisecond
)

type candidate struct {
	id      string
	e       *leaderelection.Elector
	cancel  context.CancelFunc
	started chan struct{} // closed when it starts leading
	done    chan error    // Run's result
}

func start(t *testing.T, hub *apiservertest.Server, id string, release bool) *candidate {
	t.Helper()
	e, err := leaderelection.New(leaderelection.Config{Client: hub.Client, Namespace: "default", Name: "test-lock", Identity: id,
		LeaseDuration: lease, RenewDeadline: renew, RetryPeriod: retry, ReleaseOnCancel: release})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &candidate{id: id, e: e, cancel: cancel, started: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		c.done <- e.Run(ctx, leaderelection.Callbacks{OnStartedLeading: func(ctx context.Context) error {
			close(c.started)
			<-ctx.Done()
			return nil
		}})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Errorf("%s: Run did not return", id)
		}
	})
	return c
}

// firstLeader waits for one of cs to lead and returns it and the other.
func firstLeader(t *testing.T, a, b *candidate) (leader, standby *candidate) {
	t.Helper()
	select {
	case <-a.started:
		return a, b
	case <-b.started:
		return b, a
	case <-time.After(10 * time.Second):
		t.Fatal("nobody leads")
	}
	return nil, nil
}

func holder(t *testing.T, hub *apiservertest.Server) string {
	t.Helper()
	o, err := hub.Client.Resource("coordination.k8s.io", "v1", "leases").Namespace("default").Get(context.Background(), "test-lock")
	if err != nil {
		t.Fatal(err)
	}
	return api.NestedString(o, "spec", "holderIdentity")
}

func TestTakeover(t *testing.T) {
	for _, tc := range []struct {
		name    string
		release bool
		within  time.Duration
	}{
		// Killed without release: the standby waits out the lease from when it last
		// saw it renewed (up to a retry after the renewal), then takes it at its next retry.
		{"leader killed", false, lease + 5*retry},
		// Clean shutdown releases: the standby takes over at its next retry.
		{"leader releases", true, lease / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hub := apiservertest.Start(t)
			a := start(t, hub, "a", tc.release)
			b := start(t, hub, "b", tc.release)
			leader, standby := firstLeader(t, a, b)
			// Only one leads: the standby stays out for longer than a lease.
			select {
			case <-standby.started:
				t.Fatal("both lead")
			case <-time.After(lease + 2*retry):
			}
			if h := holder(t, hub); h != leader.id {
				t.Fatalf("lease holder = %q, want %q", h, leader.id)
			}
			killed := time.Now()
			leader.cancel()
			select {
			case <-standby.started:
			case <-time.After(5 * lease):
				t.Fatal("standby never took over")
			}
			if took := time.Since(killed); took > tc.within {
				t.Fatalf("takeover took %v, want <= %v", took, tc.within)
			}
			if h := holder(t, hub); h != standby.id {
				t.Fatalf("lease holder = %q, want %q", h, standby.id)
			}
			if !standby.e.IsLeader() || leader.e.IsLeader() {
				t.Fatal("IsLeader disagrees")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  leaderelection.Config
	}{
		{"no client", leaderelection.Config{Namespace: "a", Name: "b", Identity: "c"}},
		{"renew >= lease", leaderelection.Config{Namespace: "a", Name: "b", Identity: "c", LeaseDuration: time.Second, RenewDeadline: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := leaderelection.New(tc.cfg); err == nil {
				t.Fatal("want error")
			}
		})
	}
}
