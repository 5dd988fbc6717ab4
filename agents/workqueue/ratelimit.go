package workqueue

import (
	"math"
	"sync"
	"time"
)

// RateLimiter decides how long an item waits before it is retried.
type RateLimiter interface {
	// When returns the delay before item's next attempt and counts the attempt.
	When(item string) time.Duration
	// Forget clears item's history.
	Forget(item string)
	// NumRequeues says how many attempts item has had since it was last forgotten.
	NumRequeues(item string) int
}

// ItemBackoff is per-item exponential backoff: Base·2^n, capped at Max.
type ItemBackoff struct {
	Base, Max time.Duration

	mu       sync.Mutex
	failures map[string]int
}

var _ RateLimiter = (*ItemBackoff)(nil)

// NewItemBackoff returns an ItemBackoff from base to max.
func NewItemBackoff(base, max time.Duration) *ItemBackoff {
	return &ItemBackoff{Base: base, Max: max, failures: map[string]int{}}
}

// When implements RateLimiter.
func (r *ItemBackoff) When(item string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.failures[item]
	r.failures[item] = n + 1
	d := float64(r.Base) * math.Pow(2, float64(n))
	if d > float64(r.Max) {
		return r.Max
	}
	return time.Duration(d)
}

// Forget implements RateLimiter.
func (r *ItemBackoff) Forget(item string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

// NumRequeues implements RateLimiter.
func (r *ItemBackoff) NumRequeues(item string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// Bucket is an overall token bucket: QPS tokens a second, up to Burst at once.
// Its delay is the same for every item; it keeps a storm of failures from
// turning into a storm of requests.
type Bucket struct {
	QPS   float64
	Burst int

	mu     sync.Mutex
	tokens float64
	last   time.Time
	now    func() time.Time
}

var _ RateLimiter = (*Bucket)(nil)

// NewBucket returns a full bucket.
func NewBucket(qps float64, burst int) *Bucket {
	return &Bucket{QPS: qps, Burst: burst, tokens: float64(burst), now: time.Now}
}

// When reserves one token and returns how long until it is available.
func (b *Bucket) When(string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if !b.last.IsZero() {
		b.tokens = math.Min(float64(b.Burst), b.tokens+now.Sub(b.last).Seconds()*b.QPS)
	}
	b.last = now
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.QPS * float64(time.Second))
}

// Forget implements RateLimiter; a bucket has no per-item state.
func (b *Bucket) Forget(string) {}

// NumRequeues implements RateLimiter; a bucket has no per-item state.
func (b *Bucket) NumRequeues(string) int { return 0 }

// MaxOf is the slowest of several limiters; NumRequeues is the largest.
type MaxOf []RateLimiter

var _ RateLimiter = MaxOf(nil)

// When implements RateLimiter.
func (m MaxOf) When(item string) time.Duration {
	var d time.Duration
	for _, r := range m {
		d = max(d, r.When(item))
	}
	return d
}

// Forget implements RateLimiter.
func (m MaxOf) Forget(item string) {
	for _, r := range m {
		r.Forget(item)
	}
}

// NumRequeues implements RateLimiter.
func (m MaxOf) NumRequeues(item string) int {
	n := 0
	for _, r := range m {
		n = max(n, r.NumRequeues(item))
	}
	return n
}

// DefaultRateLimiter is client-go's default: 5 ms·2^n per item up to 1000 s,
// and 10 qps with a burst of 100 overall.
func DefaultRateLimiter() RateLimiter {
	return MaxOf{NewItemBackoff(5*time.Millisecond, 1000*time.Second), NewBucket(10, 100)}
}
