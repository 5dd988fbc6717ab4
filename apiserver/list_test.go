package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
	"github.com/capstan-io/capstan/storage/etcd3"
)

func TestListSelectorsAndPages(t *testing.T) {
	s, cms := setup(t, "l")
	ctx := context.Background()
	if _, err := s.Client.Resource("", "v1", "namespaces").Create(ctx, namespace("l2")); err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		o := configMap(fmt.Sprintf("cm%d", i), nil)
		o.Meta()["labels"] = map[string]any{"tier": []string{"web", "db"}[i%2], "n": fmt.Sprint(i)}
		if _, err := cms.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	s.Client.Resource("", "v1", "configmaps").Namespace("l2").Create(ctx, configMap("other", nil))

	names := func(l *client.List) []string {
		var out []string
		for _, o := range l.Items {
			out = append(out, o.Name())
		}
		sort.Strings(out)
		return out
	}
	for _, tc := range []struct {
		name string
		rc   *client.ResourceClient
		opts client.ListOptions
		want int
	}{
		{"everything in namespace", cms, client.ListOptions{}, 7},
		{"all namespaces", s.Client.Resource("", "v1", "configmaps"), client.ListOptions{}, 8},
		{"equality", cms, client.ListOptions{LabelSelector: "tier=web"}, 4},
		{"double equals", cms, client.ListOptions{LabelSelector: "tier==db"}, 3},
		{"inequality", cms, client.ListOptions{LabelSelector: "tier!=web"}, 3},
		{"in", cms, client.ListOptions{LabelSelector: "n in (1,2,3)"}, 3},
		{"notin", cms, client.ListOptions{LabelSelector: "n notin (1,2,3)"}, 4},
		{"exists", cms, client.ListOptions{LabelSelector: "tier"}, 7},
		{"not exists", cms, client.ListOptions{LabelSelector: "!tier"}, 0},
		{"field name", cms, client.ListOptions{FieldSelector: "metadata.name=cm3"}, 1},
		{"field namespace across namespaces", s.Client.Resource("", "v1", "configmaps"), client.ListOptions{FieldSelector: "metadata.namespace=l2"}, 1},
		{"both selectors", cms, client.ListOptions{LabelSelector: "tier=web", FieldSelector: "metadata.name!=cm0"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := tc.rc.List(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Items) != tc.want || l.Metadata.ResourceVersion == "" {
				t.Fatalf("got %v (rv %q), want %d items", names(l), l.Metadata.ResourceVersion, tc.want)
			}
		})
	}

	t.Run("pages", func(t *testing.T) {
		var all []string
		opts := client.ListOptions{Limit: 3}
		first := true
		for pages := 0; ; pages++ {
			l, err := cms.List(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			if first && (l.Metadata.RemainingItemCount == nil || *l.Metadata.RemainingItemCount != 4) {
				t.Fatalf("remainingItemCount %v, want 4", l.Metadata.RemainingItemCount)
			}
			if first { // a write between pages must not show up in later pages
				cms.Create(ctx, configMap("cm9-late", nil))
				first = false
			}
			all = append(all, names(l)...)
			if l.Metadata.Continue == "" {
				break
			}
			opts.Continue = l.Metadata.Continue
			if pages > 5 {
				t.Fatal("paging does not end")
			}
		}
		if len(all) != 7 {
			t.Fatalf("pages returned %v, want the 7 objects at the first page's revision", all)
		}
	})

	t.Run("paged with selector", func(t *testing.T) {
		l, err := cms.List(ctx, client.ListOptions{Limit: 2, LabelSelector: "tier=db"})
		if err != nil || len(l.Items) != 2 || l.Metadata.Continue == "" {
			t.Fatalf("got %v cont=%q err=%v", names(l), l.Metadata.Continue, err)
		}
		l2, err := cms.List(ctx, client.ListOptions{Limit: 2, LabelSelector: "tier=db", Continue: l.Metadata.Continue})
		if err != nil || len(l2.Items) != 1 {
			t.Fatalf("second page %v %v", names(l2), err)
		}
	})

	t.Run("resourceVersionMatch", func(t *testing.T) {
		l, _ := cms.List(ctx, client.ListOptions{})
		old := l.Metadata.ResourceVersion
		cms.Create(ctx, configMap("newer", nil))
		exact, err := cms.List(ctx, client.ListOptions{ResourceVersion: old, ResourceVersionMatch: "Exact"})
		if err != nil || len(exact.Items) != len(l.Items) || exact.Metadata.ResourceVersion != old {
			t.Fatalf("Exact list: %d items rv %s (%v), want %d at %s", len(exact.Items), exact.Metadata.ResourceVersion, err, len(l.Items), old)
		}
		newer, err := cms.List(ctx, client.ListOptions{ResourceVersion: old, ResourceVersionMatch: "NotOlderThan"})
		if err != nil || len(newer.Items) != len(l.Items)+1 {
			t.Fatalf("NotOlderThan list: %d items (%v)", len(newer.Items), err)
		}
		if _, err := cms.List(ctx, client.ListOptions{ResourceVersion: "0"}); err != nil {
			t.Fatalf("resourceVersion=0: %v", err)
		}
	})

	t.Run("continue token after compaction is 410", func(t *testing.T) {
		l, err := cms.List(ctx, client.ListOptions{Limit: 1})
		if err != nil || l.Metadata.Continue == "" {
			t.Fatal("no continue token", err)
		}
		for i := range 3 {
			cms.Create(ctx, configMap(fmt.Sprintf("churn%d", i), nil))
		}
		compactNow(t, s.Etcd.Endpoint)
		_, err = cms.List(ctx, client.ListOptions{Limit: 1, Continue: l.Metadata.Continue})
		if !apierrors.IsGone(err) || apierrors.ReasonOf(err) != apierrors.ReasonExpired {
			t.Fatalf("stale continue: %v, want 410 Expired", err)
		}
	})
}

// compactNow compacts etcd to its current revision.
func compactNow(t *testing.T, endpoint string) {
	t.Helper()
	cli, err := etcd3.NewClient([]string{endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	c := etcd3.NewCompactor(cli, time.Hour, nil)
	rev, err := c.Once(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Once(context.Background(), rev); err != nil {
		t.Fatal(err)
	}
}

func TestTables(t *testing.T) {
	s, _ := setup(t, "tb")
	ctx := context.Background()
	pods := s.Client.Resource("", "v1", "pods").Namespace("tb")
	if _, err := pods.Create(ctx, pod("p1")); err != nil {
		t.Fatal(err)
	}
	b, err := s.Client.Do(ctx, client.Request{Method: http.MethodGet, Path: pods.Path("", ""),
		Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
	if err != nil {
		t.Fatal(err)
	}
	var tbl api.Table
	if err := json.Unmarshal(b, &tbl); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range tbl.ColumnDefinitions {
		if c.Priority == 0 {
			cols = append(cols, c.Name)
		}
	}
	if tbl.Kind != "Table" || fmt.Sprint(cols) != "[Name Ready Status Restarts Age]" || len(tbl.Rows) != 1 {
		t.Fatalf("table %s %v with %d rows", tbl.Kind, cols, len(tbl.Rows))
	}
	if cells := tbl.Rows[0].Cells; cells[0] != "p1" || cells[1] != "0/1" || cells[2] != "Pending" {
		t.Fatalf("row cells %v", cells)
	}
	var meta map[string]any
	json.Unmarshal(tbl.Rows[0].Object, &meta)
	if meta["kind"] != "PartialObjectMetadata" {
		t.Fatalf("row object %v, want PartialObjectMetadata by default", meta)
	}
	if _, err := s.Client.Do(ctx, client.Request{Method: http.MethodGet, Path: pods.Path("", ""), Accept: "application/vnd.kubernetes.protobuf"}); apierrors.Code(err) != 406 {
		t.Fatalf("protobuf-only Accept: %v, want 406", err)
	}
}

// TestListAndGetDecodeAlike: an object read by a list, a get or a watch must be
// the same Go value (numbers are json.Number everywhere), or controllers that
// compare a watched object with a listed one see a difference that is not there.
func TestListAndGetDecodeAlike(t *testing.T) {
	s, _ := setup(t, "num")
	ctx := context.Background()
	deps := s.Client.Resource("apps", "v1", "deployments").Namespace("num")
	if _, err := deps.Create(ctx, deployment("web", 3)); err != nil {
		t.Fatal(err)
	}
	got, err := deps.Get(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	l, err := deps.List(ctx, client.ListOptions{})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("list: %v %v", l, err)
	}
	if !reflect.DeepEqual(got, l.Items[0]) {
		t.Fatalf("get and list decode differently:\n get  %#v\n list %#v", got["spec"], l.Items[0]["spec"])
	}
}
