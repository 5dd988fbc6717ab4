package apiserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/capstan-io/capstan/admission/webhook"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/storage"
)

// webhookSource keeps the admission webhooks current from a watch of the
// Mutating- and ValidatingWebhookConfigurations; the webhook plugin reads it
// on every write. It is safe for concurrent use.
type webhookSource struct {
	mu                   sync.RWMutex
	mutating, validating []webhook.Hook
}

var _ webhook.Source = (*webhookSource)(nil)

// Webhooks returns the current webhooks, sorted by configuration name.
func (s *webhookSource) Webhooks() (mutating, validating []webhook.Hook) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mutating, s.validating
}

// webhookConfig is the part of a webhook configuration the server reads.
type webhookConfig struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Webhooks []struct {
		Name         string `json:"name"`
		ClientConfig struct {
			URL      string `json:"url"`
			CABundle string `json:"caBundle"`
		} `json:"clientConfig"`
		Rules          []webhook.Rule `json:"rules"`
		FailurePolicy  string         `json:"failurePolicy"`
		TimeoutSeconds *int           `json:"timeoutSeconds"`
	} `json:"webhooks"`
}

// Run lists and watches both configuration kinds until ctx ends; any change
// re-reads them all (there are few).
func (s *webhookSource) Run(ctx context.Context, store storage.Interface, log *slog.Logger) {
	mut := &api.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "mutatingwebhookconfigurations"}
	val := &api.Resource{Group: "admissionregistration.k8s.io", Version: "v1", Name: "validatingwebhookconfigurations"}
	prefix := "/registry/admissionregistration.k8s.io/"
	for ctx.Err() == nil {
		rev, err := s.reload(ctx, store, mut.KeyPrefix(), val.KeyPrefix())
		if err != nil {
			log.WarnContext(ctx, "reading webhook configurations", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		wctx, cancel := context.WithCancel(ctx)
		events, _ := store.Watch(wctx, prefix, rev)
		for ev := range events {
			if ev.Type != storage.EventProgress {
				break // re-read everything
			}
		}
		cancel()
	}
}

// reload reads every configuration and returns the revision read at.
func (s *webhookSource) reload(ctx context.Context, store storage.Interface, mutPrefix, valPrefix string) (int64, error) {
	var hooks [2][]webhook.Hook
	var rev int64
	for i, prefix := range []string{mutPrefix, valPrefix} {
		res, err := store.List(ctx, prefix, storage.ListOptions{Revision: rev})
		if err != nil {
			return 0, err
		}
		if rev == 0 {
			// The second list reads at the first one's revision; its own
			// Revision is the store's current one, which may be newer.
			rev = res.Revision
		}
		sort.Slice(res.Items, func(a, b int) bool { return res.Items[a].Key < res.Items[b].Key })
		for _, kv := range res.Items {
			var cfg webhookConfig
			if json.Unmarshal(kv.Value, &cfg) != nil {
				continue
			}
			for _, w := range cfg.Webhooks {
				h := webhook.Hook{Name: w.Name, URL: w.ClientConfig.URL, Rules: w.Rules, FailurePolicy: w.FailurePolicy, Timeout: 10 * time.Second}
				if w.TimeoutSeconds != nil {
					h.Timeout = time.Duration(*w.TimeoutSeconds) * time.Second
				}
				if ca, err := base64.StdEncoding.DecodeString(w.ClientConfig.CABundle); err == nil {
					h.CABundle = ca
				}
				hooks[i] = append(hooks[i], h)
			}
		}
	}
	s.mu.Lock()
	s.mutating, s.validating = hooks[0], hooks[1]
	s.mu.Unlock()
	return rev, nil
}
