package workqueue

import (
	"sync"
	"testing"
	"time"
)

func get(t *testing.T, q *Queue) string {
	t.Helper()
	c := make(chan string, 1)
	go func() {
		it, _ := q.Get()
		c <- it
	}()
	select {
	case it := <-c:
		return it
	case <-time.After(5 * time.Second):
		t.Fatal("Get did not return within 5s")
		return ""
	}
}

func TestDedup(t *testing.T) {
	q := New(nil)
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("a")
	if q.Len() != 2 {
		t.Fatalf("Len = %d, want 2", q.Len())
	}
	if got := get(t, q); got != "a" {
		t.Fatalf("first = %q", got)
	}
}

func TestReAddWhileProcessing(t *testing.T) {
	q := New(nil)
	defer q.ShutDown()
	q.Add("a")
	it := get(t, q)
	q.Add("a") // while processing: must not be handed out until Done
	if q.Len() != 0 {
		t.Fatalf("re-added item handed out concurrently: Len = %d", q.Len())
	}
	q.Done(it)
	if q.Len() != 1 {
		t.Fatalf("after Done Len = %d, want 1", q.Len())
	}
	q.Done(get(t, q))
	if q.Len() != 0 {
		t.Fatalf("Len = %d, want 0", q.Len())
	}
}

func TestNeverConcurrent(t *testing.T) {
	q := New(nil)
	var mu sync.Mutex
	active := map[string]bool{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, stop := q.Get()
				if stop {
					return
				}
				mu.Lock()
				if active[it] {
					t.Errorf("%s processed concurrently", it)
				}
				active[it] = true
				mu.Unlock()
				q.Add(it) // re-add during processing
				mu.Lock()
				active[it] = false
				mu.Unlock()
				q.Done(it)
			}
		}()
	}
	for i := range 1000 {
		q.Add([]string{"a", "b", "c"}[i%3])
	}
	q.ShutDown()
	wg.Wait()
}

func TestAddAfter(t *testing.T) {
	q := New(nil)
	defer q.ShutDown()
	start := time.Now()
	q.AddAfter("late", 200*time.Millisecond)
	q.AddAfter("soon", 20*time.Millisecond)
	if got := get(t, q); got != "soon" {
		t.Fatalf("first = %q, want soon", got)
	}
	if got := get(t, q); got != "late" {
		t.Fatalf("second = %q, want late", got)
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Fatalf("late came after %v, want >= 200ms", el)
	}
}

func TestShutDownDrains(t *testing.T) {
	q := New(nil)
	q.Add("a")
	q.ShutDown()
	if it, stop := q.Get(); stop || it != "a" {
		t.Fatalf("Get = %q,%v; want a,false", it, stop)
	}
	if _, stop := q.Get(); !stop {
		t.Fatal("Get after drain: want shutdown")
	}
	q.Add("b")
	if q.Len() != 0 {
		t.Fatal("Add after ShutDown queued an item")
	}
}

func TestRateLimiters(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    RateLimiter
		want []time.Duration
	}{
		{"item backoff", NewItemBackoff(time.Millisecond, 5*time.Millisecond), []time.Duration{1, 2, 4, 5, 5}},
		{"bucket", NewBucket(1000, 2), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, w := range tc.want {
				if got := tc.r.When("x"); got != w*time.Millisecond {
					t.Errorf("When #%d = %v, want %v", i, got, w*time.Millisecond)
				}
			}
			if tc.want != nil {
				if n := tc.r.NumRequeues("x"); n != len(tc.want) {
					t.Errorf("NumRequeues = %d", n)
				}
				tc.r.Forget("x")
				if n := tc.r.NumRequeues("x"); n != 0 {
					t.Errorf("after Forget NumRequeues = %d", n)
				}
			}
		})
	}
	b := NewBucket(10, 2)
	now := time.Unix(0, 0)
	b.now = func() time.Time { return now }
	if b.When("") != 0 || b.When("") != 0 {
		t.Fatal("burst not free")
	}
	if d := b.When(""); d != 100*time.Millisecond {
		t.Fatalf("third token delay = %v, want 100ms", d)
	}
}
