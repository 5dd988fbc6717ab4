package workqueue

import (
	"container/heap"
	"sync"
	"time"
)

// Queue is a deduplicating, rate-limited work queue of keys.
type Queue struct {
	limiter RateLimiter

	mu         sync.Mutex
	cond       *sync.Cond
	queue      []string            // FIFO of items ready to be taken
	dirty      map[string]struct{} // items that need processing (queued or re-added while processing)
	processing map[string]struct{} // items handed out by Get and not yet Done
	shutdown   bool

	waiting  waitHeap             // items delayed by AddAfter, soonest first
	waitIdx  map[string]*waitItem // the pending delay of each item, so a sooner AddAfter wins
	wakec    chan struct{}        // nudges the delaying loop when waiting changes; buffered 1
	stopc    chan struct{}        // closed by ShutDown to stop the delaying loop
	donec    chan struct{}        // closed when the delaying loop has exited
	nowFunc  func() time.Time
	stopOnce sync.Once
}

// New returns a running Queue. A nil limiter means DefaultRateLimiter.
func New(limiter RateLimiter) *Queue {
	if limiter == nil {
		limiter = DefaultRateLimiter()
	}
	q := &Queue{
		limiter:    limiter,
		dirty:      map[string]struct{}{},
		processing: map[string]struct{}{},
		waitIdx:    map[string]*waitItem{},
		wakec:      make(chan struct{}, 1),
		stopc:      make(chan struct{}),
		donec:      make(chan struct{}),
		nowFunc:    time.Now,
	}
	q.cond = sync.NewCond(&q.mu)
	go q.delayLoop()
	return q
}

// Add marks item as needing processing. It is a no-op if item is already
// queued; if item is being processed it is queued again at Done.
func (q *Queue) Add(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.addLocked(item)
}

func (q *Queue) addLocked(item string) {
	if q.shutdown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return
	}
	q.dirty[item] = struct{}{}
	if _, ok := q.processing[item]; ok {
		return
	}
	q.queue = append(q.queue, item)
	q.cond.Signal()
}

// Len is the number of items ready to be taken.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// Get blocks until an item is ready and returns it; shutdown is true once the
// queue is shut down and drained. The caller must call Done(item) afterwards.
func (q *Queue) Get() (item string, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.shutdown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		return "", true
	}
	item = q.queue[0]
	q.queue[0] = ""
	q.queue = q.queue[1:]
	q.processing[item] = struct{}{}
	delete(q.dirty, item)
	return item, false
}

// Done ends processing of item; if it was added meanwhile it is queued again.
func (q *Queue) Done(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.queue = append(q.queue, item)
		q.cond.Signal()
	}
}

// AddAfter adds item once d has passed. A sooner pending AddAfter of the same
// item wins; d <= 0 is Add.
func (q *Queue) AddAfter(item string, d time.Duration) {
	if d <= 0 {
		q.Add(item)
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	at := q.nowFunc().Add(d)
	if w, ok := q.waitIdx[item]; ok {
		if at.Before(w.at) {
			w.at = at
			heap.Fix(&q.waiting, w.index)
		}
	} else {
		w := &waitItem{item: item, at: at}
		heap.Push(&q.waiting, w)
		q.waitIdx[item] = w
	}
	select {
	case q.wakec <- struct{}{}:
	default:
	}
}

// AddRateLimited adds item after the rate limiter's delay for it.
func (q *Queue) AddRateLimited(item string) { q.AddAfter(item, q.limiter.When(item)) }

// Forget clears item's rate-limit history; call it when item succeeded.
func (q *Queue) Forget(item string) { q.limiter.Forget(item) }

// NumRequeues says how many rate-limited retries item has had.
func (q *Queue) NumRequeues(item string) int { return q.limiter.NumRequeues(item) }

// ShutDown stops accepting items, lets Get drain what is queued, and stops the
// delaying goroutine. It waits for that goroutine to exit.
func (q *Queue) ShutDown() {
	q.stopOnce.Do(func() {
		q.mu.Lock()
		q.shutdown = true
		q.cond.Broadcast()
		q.mu.Unlock()
		close(q.stopc)
	})
	<-q.donec
}

// ShuttingDown reports whether ShutDown was called.
func (q *Queue) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shutdown
}

// delayLoop moves delayed items into the queue when they are due.
func (q *Queue) delayLoop() {
	defer close(q.donec)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		q.mu.Lock()
		now := q.nowFunc()
		for q.waiting.Len() > 0 && !q.waiting[0].at.After(now) {
			w := heap.Pop(&q.waiting).(*waitItem)
			delete(q.waitIdx, w.item)
			q.addLocked(w.item)
		}
		next := time.Hour
		if q.waiting.Len() > 0 {
			next = q.waiting[0].at.Sub(now)
		}
		q.mu.Unlock()
		timer.Reset(next)
		select {
		case <-q.stopc:
			return
		case <-q.wakec:
		case <-timer.C:
		}
	}
}

type waitItem struct {
	item  string
	at    time.Time
	index int
}

// waitHeap is a min-heap of delayed items by due time.
type waitHeap []*waitItem

func (h waitHeap) Len() int           { return len(h) }
func (h waitHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waitItem)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}
