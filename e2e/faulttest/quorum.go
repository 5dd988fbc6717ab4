package faulttest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/client"
)

// Writes creates ConfigMaps in cms and records those whose create was
// acknowledged, for NothingLost.
type Writes struct {
	cms   *client.ResourceClient
	Acked []string
}

// NewWrites returns a Writes creating in cms.
func NewWrites(cms *client.ResourceClient) *Writes { return &Writes{cms: cms} }

// Write creates ConfigMap name.
func (w *Writes) Write(t *testing.T, name string) error {
	_, err := w.cms.Create(t.Context(), ConfigMap(name))
	if err == nil {
		w.Acked = append(w.Acked, name)
	}
	return err
}

// MinorityDown checks, with one etcd member of three stopped, that 20 writes
// ("minority-N", recorded in w) and 20 reads of existing all succeed: a write
// may meet a leader election but not fail.
func MinorityDown(t *testing.T, w *Writes, existing string) {
	t.Helper()
	begun := time.Now()
	for i := range 20 {
		if err := w.Write(t, fmt.Sprintf("minority-%d", i)); err != nil {
			t.Fatalf("write with one etcd member of three stopped: %v", err)
		}
		if _, err := w.cms.Get(t.Context(), existing); err != nil {
			t.Fatalf("read with one etcd member of three stopped: %v", err)
		}
	}
	t.Logf("one etcd member stopped: 20 writes and 20 reads in %v, none failed", time.Since(begun).Round(time.Millisecond))
}

// NoQuorum checks that, with etcd's quorum gone, a create of "no-quorum", a
// get of existing and a list of cms each fail with a 5xx Status within
// timeout (the hub's etcd request timeout) and a little, rather than hang.
// It returns the create's code.
func NoQuorum(t *testing.T, cms *client.ResourceClient, existing string, timeout time.Duration) (createCode int) {
	t.Helper()
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"create", func() error {
			_, err := cms.Create(ctx, ConfigMap("no-quorum"))
			createCode = apierrors.Code(err)
			return err
		}},
		{"get", func() error { _, err := cms.Get(ctx, existing); return err }},
		{"list", func() error { _, err := cms.List(ctx, client.ListOptions{}); return err }},
	} {
		begun := time.Now()
		err := tc.call()
		d := time.Since(begun)
		if c := apierrors.Code(err); c < 500 {
			t.Fatalf("%s without quorum: got %v (code %d), want a 5xx Status", tc.name, err, c)
		}
		if d > timeout+3*time.Second {
			t.Fatalf("%s without quorum took %v; want at most the request timeout %v and a little", tc.name, d, timeout)
		}
		t.Logf("%s without quorum: %d after %v: %v", tc.name, apierrors.Code(err), d.Round(time.Millisecond), err)
	}
	return createCode
}

// NothingLost checks that every acknowledged create is in cms, and that the
// create NoQuorum refused with 503 is not (a 504 may or may not have been
// applied). It logs the count.
func NothingLost(t *testing.T, cms *client.ResourceClient, acked []string, noQuorumCode int) {
	t.Helper()
	have := Names(t, cms)
	lost := 0
	for _, name := range acked {
		if !have[name] {
			lost++
			t.Errorf("acknowledged write %s lost", name)
		}
	}
	if have["no-quorum"] && noQuorumCode == http.StatusServiceUnavailable {
		t.Errorf("the create refused without quorum (503) exists")
	}
	t.Logf("writes lost: %d of %d acknowledged", lost, len(acked))
}
