package nodelifecycle

import (
	"testing"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

func TestEvictionDue(t *testing.T) {
	added := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tol := func(ts ...map[string]any) api.Object {
		l := []any{}
		for _, t := range ts {
			l = append(l, t)
		}
		return api.Object{"spec": map[string]any{"tolerations": l}}
	}
	for _, tc := range []struct {
		name      string
		pod       api.Object
		after     time.Duration
		wantEvict bool
		wantWait  time.Duration
	}{
		{"default before", tol(), 100 * time.Second, false, 200 * time.Second},
		{"default after", tol(), 300 * time.Second, true, 0},
		{"own toleration", tol(map[string]any{"key": UnreachableTaint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}), 5 * time.Second, false, 5 * time.Second},
		{"own toleration over", tol(map[string]any{"key": UnreachableTaint, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}), 10 * time.Second, true, 0},
		{"tolerates forever", tol(map[string]any{"operator": "Exists"}), time.Hour, false, 0},
		{"other taint's toleration does not count", tol(map[string]any{"key": "x", "operator": "Exists", "tolerationSeconds": 1}), 2 * time.Second, false, 298 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wait, evict := EvictionDue(tc.pod, added, 300*time.Second, added.Add(tc.after))
			if evict != tc.wantEvict || wait != tc.wantWait {
				t.Fatalf("EvictionDue = %v, %v; want %v, %v", wait, evict, tc.wantWait, tc.wantEvict)
			}
		})
	}
}
