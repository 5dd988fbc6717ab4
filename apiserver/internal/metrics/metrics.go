// Package metrics defines the hub's Prometheus metrics on a registry of its
// own, so several servers in one process (as in tests) do not collide.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the hub's instruments. They are safe for concurrent use.
type Metrics struct {
	Registry *prometheus.Registry
	Requests *prometheus.CounterVec   // verb, resource, code
	Latency  *prometheus.HistogramVec // verb, resource
	Watches  *prometheus.GaugeVec     // resource
	Etcd     *prometheus.HistogramVec // operation
	Inflight *prometheus.GaugeVec     // request_kind
}

// New registers the metrics.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total", Help: "Requests by verb, resource and HTTP code.",
		}, []string{"verb", "resource", "code"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_request_duration_seconds", Help: "Request latency by verb and resource (watches excluded).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"verb", "resource"}),
		Watches: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_registered_watchers", Help: "Open watches by resource.",
		}, []string{"resource"}),
		Etcd: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "etcd_request_duration_seconds", Help: "etcd request latency by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5, 10},
		}, []string{"operation"}),
		Inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_current_inflight_requests", Help: "Requests being served, by kind (readOnly, mutating).",
		}, []string{"request_kind"}),
	}
	m.Registry.MustRegister(m.Requests, m.Latency, m.Watches, m.Etcd, m.Inflight,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveEtcd records one etcd call.
func (m *Metrics) ObserveEtcd(op string, d time.Duration) {
	m.Etcd.WithLabelValues(op).Observe(d.Seconds())
}
