package apiserver

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/storage"
)

func newUID() string { return uuid.NewString() }

func encodeJSON(o api.Object) ([]byte, error) { return json.Marshal(o) }

// objectCounter reports apiserver_storage_objects on each scrape.
type objectCounter struct {
	store storage.Reader
	reg   *api.Registry
	desc  *prometheus.Desc
}

func newObjectCounter(store storage.Reader, reg *api.Registry) *objectCounter {
	return &objectCounter{store: store, reg: reg, desc: prometheus.NewDesc(
		"apiserver_storage_objects", "Stored objects by resource.", []string{"resource"}, nil)}
}

func (c *objectCounter) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *objectCounter) Collect(ch chan<- prometheus.Metric) {
	ctx := context.Background()
	for _, r := range c.reg.All() {
		if r.Virtual {
			continue
		}
		res, err := c.store.List(ctx, r.KeyPrefix(), storage.ListOptions{Limit: 1})
		if err != nil {
			continue
		}
		n := int64(len(res.Items)) + res.Remaining
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), r.GroupResource())
	}
}
