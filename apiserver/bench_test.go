package apiserver_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// BenchmarkCreate measures ConfigMap creates through the whole request path
// (TLS, authn, admission, etcd) with parallel clients; `go run ./bench` reports
// the same as a ratio to raw etcd.
func BenchmarkCreate(b *testing.B) {
	s := setupServerB(b)
	cms := s.Client.Resource("", "v1", "configmaps").Namespace("default")
	var n atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if _, err := cms.Create(context.Background(), configMap(fmt.Sprintf("cm-%d", i), map[string]any{"k": "v"})); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
