package apiserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// TestEtcdUnavailable: with etcd gone, requests fail fast with a 5xx Status and readyz fails.
func TestEtcdUnavailable(t *testing.T) {
	s, cms := setup(t, "down")
	ctx := context.Background()
	if _, err := cms.Create(ctx, configMap("before", nil)); err != nil {
		t.Fatal(err)
	}
	s.Etcd.Close()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"get", func() error { _, err := cms.Get(ctx, "before"); return err }},
		{"list", func() error { _, err := cms.List(ctx, clientListAll); return err }},
		{"create", func() error { _, err := cms.Create(ctx, configMap("during", nil)); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := tc.call()
			if c := apierrors.Code(err); c != 503 && c != 504 {
				t.Fatalf("got %v (code %d), want 503 or 504", err, c)
			}
			if !strings.Contains(err.Error(), "etcd") && !strings.Contains(err.Error(), "time") {
				t.Fatalf("message %q does not say what is wrong", err)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Fatalf("took %v; etcd calls must fail within the request timeout", d)
			}
		})
	}
	resp, err := s.Client.HTTPClient().Get(s.URL() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "etcd") {
		t.Fatalf("readyz with etcd down: %d %s", resp.StatusCode, body)
	}
	live, err := s.Client.HTTPClient().Get(s.URL() + "/livez")
	if err != nil || live.StatusCode != 200 {
		t.Fatalf("livez should stay up: %v %v", live, err)
	}
	live.Body.Close()
}

func TestMetrics(t *testing.T) {
	s, cms := setup(t, "mx")
	ctx := context.Background()
	cms.Create(ctx, configMap("a", nil))
	cms.Get(ctx, "missing")
	w, err := cms.Watch(ctx, clientListAll)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	b, err := s.Client.Do(ctx, rawReq("GET", "/metrics", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`apiserver_request_total{code="201",resource="configmaps",verb="create"} 1`,
		`apiserver_request_total{code="404",resource="configmaps",verb="get"} 1`,
		`apiserver_request_duration_seconds_bucket{resource="configmaps",verb="create"`,
		`apiserver_registered_watchers{resource="configmaps"} 1`,
		`etcd_request_duration_seconds_bucket{operation="create"`,
		`apiserver_storage_objects{resource="configmaps"} 1`,
		`apiserver_storage_objects{resource="namespaces"} 5`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
