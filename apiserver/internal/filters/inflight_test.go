package filters

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/internal/metrics"
)

// TestMaxInFlight: beyond the limit requests get 429 with Retry-After; watches are not counted.
func TestMaxInFlight(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	h := MaxInFlight(1, 1, slog.New(slog.DiscardHandler), metrics.New())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer close(release)

	type result struct {
		code  int
		retry string
	}
	do := func(method, path string) chan result {
		ch := make(chan result, 1)
		go func() {
			req, _ := http.NewRequest(method, srv.URL+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				ch <- result{}
				return
			}
			resp.Body.Close()
			ch <- result{resp.StatusCode, resp.Header.Get("Retry-After")}
		}()
		return ch
	}
	wait := func() {
		select {
		case <-entered:
		case <-time.After(5 * time.Second):
			t.Fatal("request did not reach the handler")
		}
	}
	do("GET", "/api/v1/namespaces/a/configmaps")
	wait() // one read-only request now holds the only slot
	do("POST", "/api/v1/namespaces/a/configmaps")
	wait() // mutating requests have their own limit
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/v1/namespaces/a/configmaps/x"},
		{"DELETE", "/api/v1/namespaces/a/configmaps/x"},
	} {
		select {
		case r := <-do(tc.method, tc.path):
			if r.code != http.StatusTooManyRequests || r.retry == "" {
				t.Fatalf("%s over the limit: %d Retry-After %q, want 429 with Retry-After", tc.method, r.code, r.retry)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s over the limit was queued instead of refused", tc.method)
		}
	}
	do("GET", "/api/v1/namespaces/a/configmaps?watch=1")
	wait() // a watch is admitted even with every slot taken
}
