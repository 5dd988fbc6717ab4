package filters

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Handlers runs requests' handlers on long-lived goroutines whose stacks have
// already grown to what the handlers use. HTTP/2 starts each request on a new
// goroutine with a small stack, and the request path (routing, authentication,
// admission, JSON) then regrows it by copying, 2 KiB to 4 to 8 and on, on
// every request: 6% of the server's CPU per create before this pool.
//
// A request with no idle goroutine to take it gets a new one, which joins the
// pool when done, so long watches never make others wait. At most maxIdle
// goroutines wait for work; each leaves after idleTimeout without any, and
// all of them when Close is called.
type Handlers struct {
	work    chan *handlerJob
	stop    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
	idle    atomic.Int32
	maxIdle int32
	spawned atomic.Int64 // goroutines started, for tests
	jobs    sync.Pool
}

type handlerJob struct {
	next  http.Handler
	w     http.ResponseWriter
	r     *http.Request
	done  chan struct{}
	panic any
}

// idleTimeout is how long a pooled goroutine waits for a request before it exits.
const idleTimeout = 30 * time.Second

// NewHandlers returns a pool keeping at most maxIdle goroutines waiting.
func NewHandlers(maxIdle int) *Handlers {
	p := &Handlers{work: make(chan *handlerJob), stop: make(chan struct{}), maxIdle: int32(maxIdle)}
	p.jobs.New = func() any { return &handlerJob{done: make(chan struct{}, 1)} }
	return p
}

// Middleware serves each request on a pooled goroutine and returns when its
// handler does. A panic in the handler is raised again on the request's own
// goroutine, so net/http treats it as its own (http.ErrAbortHandler included).
func (p *Handlers) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j := p.jobs.Get().(*handlerJob)
		j.next, j.w, j.r = next, w, r
		select {
		case p.work <- j:
		case <-p.stop:
			next.ServeHTTP(w, r)
			j.next, j.w, j.r = nil, nil, nil
			p.jobs.Put(j)
			return
		default:
			p.wg.Add(1)
			p.spawned.Add(1)
			go p.worker(j)
		}
		<-j.done
		v := j.panic
		j.next, j.w, j.r, j.panic = nil, nil, nil, nil
		p.jobs.Put(j)
		if v != nil {
			panic(v)
		}
	})
}

// Close makes every idle goroutine exit and waits for them and for busy ones
// to finish their requests, or until ctx ends (a handler that ignores its
// request's end must not hold up a shutdown): then it returns ctx's error.
// Requests after Close run on their own goroutines.
func (p *Handlers) Close(ctx context.Context) error {
	p.stopped.Do(func() { close(p.stop) })
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Handlers) worker(j *handlerJob) {
	defer p.wg.Done()
	t := time.NewTimer(idleTimeout)
	defer t.Stop()
	for {
		j.run()
		if p.idle.Add(1) > p.maxIdle {
			p.idle.Add(-1)
			return
		}
		t.Reset(idleTimeout)
		select {
		case j = <-p.work:
			p.idle.Add(-1)
		case <-t.C:
			p.idle.Add(-1)
			return
		case <-p.stop:
			p.idle.Add(-1)
			return
		}
	}
}

func (j *handlerJob) run() {
	defer func() {
		j.panic = recover()
		j.done <- struct{}{}
	}()
	j.next.ServeHTTP(j.w, j.r)
}
