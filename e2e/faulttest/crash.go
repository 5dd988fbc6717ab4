package faulttest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// CrashConsistency: every hub replica is killed (killAll, SIGKILL) during
// 1,000 concurrent creates spread over clients. After restart brings the
// hub back (it returns a client of it), every create answered 201 is
// present, and none that was refused exists. A tenth of the creates are
// invalid, so refusals are certain to occur.
func CrashConsistency(t *testing.T, clients []*client.Client, killAll func(), restart func() *client.Client) {
	ctx := t.Context()
	const total, workers, killAfter = 1000, 16, 300
	prefix := fmt.Sprintf("crash-%d-", time.Now().UnixNano()%1e6)
	var (
		mu                        sync.Mutex
		created, refused, unknown []string
		next                      atomic.Int32
		killed                    = make(chan struct{})
		killOnce                  sync.Once
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			cms := clients[w%len(clients)].Resource("", "v1", "configmaps").Namespace("default")
			for {
				i := int(next.Add(1)) - 1
				if i >= total {
					return
				}
				name := fmt.Sprintf("%s%04d", prefix, i)
				obj := ConfigMap(name)
				if i%10 == 9 {
					obj["data"] = map[string]any{"k": 7} // not a string: 422
				}
				_, err := cms.Create(ctx, obj)
				mu.Lock()
				var se *apierrors.StatusError
				switch {
				case err == nil:
					created = append(created, name)
				case errors.As(err, &se) && apierrors.Code(err) < 500:
					refused = append(refused, name)
				default:
					unknown = append(unknown, name) // no answer, or a 5xx that may have committed
				}
				n := len(created)
				mu.Unlock()
				if n == killAfter {
					killOnce.Do(func() {
						killAll()
						close(killed)
					})
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the creates ended before the servers were killed")
	}

	have := Names(t, restart().Resource("", "v1", "configmaps").Namespace("default"))
	lost, ghosts := 0, 0
	for _, name := range created {
		if !have[name] {
			lost++
			t.Errorf("%s was created (201) but is missing after the restart", name)
		}
	}
	for _, name := range refused {
		if have[name] {
			ghosts++
			t.Errorf("%s was refused but exists after the restart", name)
		}
	}
	kept := 0
	for _, name := range unknown {
		if have[name] {
			kept++
		}
	}
	t.Logf("%d creates: %d answered 201, %d refused, %d unanswered when the servers died (%d of those stored); writes lost %d, refused writes present %d",
		total, len(created), len(refused), len(unknown), kept, lost, ghosts)
}
