package wait

import (
	"context"
	"math/rand/v2"
	"time"
)

// Sleep waits d or until ctx is done; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Jitter returns d plus a random part of up to frac·d.
func Jitter(d time.Duration, frac float64) time.Duration {
	return d + time.Duration(rand.Int64N(int64(float64(d)*frac)+1))
}

// Backoff is exponential backoff with full jitter between Min and a ceiling
// that doubles on each Next, up to Max.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next returns the next delay.
func (b *Backoff) Next() time.Duration {
	if b.cur == 0 {
		b.cur = b.Min
	} else {
		b.cur = min(2*b.cur, b.Max)
	}
	return b.Min + time.Duration(rand.Int64N(int64(b.cur-b.Min)+1))
}

// Reset starts again from Min.
func (b *Backoff) Reset() { b.cur = 0 }

// Until polls cond every interval until it is true (returns true) or ctx is done (returns false).
func Until(ctx context.Context, interval time.Duration, cond func() bool) bool {
	t := time.NewTicker(interval)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}
