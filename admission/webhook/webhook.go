package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/uuid"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
)

// Hook is one webhook of a configuration.
type Hook struct {
	Name string
	URL  string
	// CABundle verifies the webhook's serving certificate; empty means the system roots.
	CABundle []byte
	Rules    []Rule
	// FailurePolicy is "Fail" (default) or "Ignore".
	FailurePolicy string
	Timeout       time.Duration
}

// Rule selects writes by operation, group, version and resource ("*" matches any).
type Rule struct {
	Operations  []string `json:"operations"`
	APIGroups   []string `json:"apiGroups"`
	APIVersions []string `json:"apiVersions"`
	Resources   []string `json:"resources"`
}

// Source returns the webhooks currently configured.
type Source interface {
	Webhooks() (mutating, validating []Hook)
}

// Plugin calls webhooks. It is both a Mutator and a Validator.
type Plugin struct {
	src Source
}

// New returns the webhook plugin over src.
func New(src Source) *Plugin { return &Plugin{src: src} }

var (
	_ admission.Mutator       = (*Plugin)(nil)
	_ admission.Validator     = (*Plugin)(nil)
	_ admission.RequiresValid = (*Plugin)(nil)
)

// Name returns the plugin's name.
func (p *Plugin) Name() string { return "Webhooks" }

// RequiresValidObject: validating webhooks are not called for an object the
// schema or kind rules already refused.
func (p *Plugin) RequiresValidObject() bool { return true }

// Admit calls the mutating webhooks and applies their patches.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	mutating, _ := p.src.Webhooks()
	for _, h := range mutating {
		if err := p.call(ctx, h, a, true); err != nil {
			return err
		}
	}
	return nil
}

// Validate calls the validating webhooks.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	_, validating := p.src.Webhooks()
	for _, h := range validating {
		if err := p.call(ctx, h, a, false); err != nil {
			return err
		}
	}
	return nil
}

// matches reports whether a rule of h selects the write.
func (h Hook) matches(a *admission.Attributes) bool {
	res := a.Resource.Name
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	for _, r := range h.Rules {
		if anyOf(r.Operations, string(a.Operation)) && anyOf(r.APIGroups, a.Resource.Group) &&
			anyOf(r.APIVersions, a.Resource.Version) && (anyOf(r.Resources, res) || (a.Subresource == "" && anyOf(r.Resources, a.Resource.Name))) {
			return true
		}
	}
	return false
}

func anyOf(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// review is the AdmissionReview sent and received.
type review struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Request    *request  `json:"request,omitempty"`
	Response   *response `json:"response,omitempty"`
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind,omitempty"`
}

type gvr struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

type request struct {
	UID         string     `json:"uid"`
	Kind        gvk        `json:"kind"`
	Resource    gvr        `json:"resource"`
	SubResource string     `json:"subResource,omitempty"`
	Name        string     `json:"name,omitempty"`
	Namespace   string     `json:"namespace,omitempty"`
	Operation   string     `json:"operation"`
	UserInfo    struct{}   `json:"userInfo"`
	Object      api.Object `json:"object,omitempty"`
	OldObject   api.Object `json:"oldObject,omitempty"`
	DryRun      bool       `json:"dryRun"`
}

type response struct {
	UID     string `json:"uid"`
	Allowed bool   `json:"allowed"`
	Status  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
	} `json:"status,omitempty"`
	Patch     []byte   `json:"patch,omitempty"`
	PatchType string   `json:"patchType,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// call sends one AdmissionReview and applies its answer.
func (p *Plugin) call(ctx context.Context, h Hook, a *admission.Attributes, mutating bool) error {
	if a.Resource == nil || !h.matches(a) {
		return nil
	}
	resp, err := h.post(ctx, a)
	if err != nil {
		if h.FailurePolicy == "Ignore" {
			a.AddWarning(fmt.Sprintf("failed calling webhook %q, ignored: %v", h.Name, err))
			return nil
		}
		return admission.Internal(fmt.Sprintf("failed calling webhook %q: %v", h.Name, err))
	}
	for _, w := range resp.Warnings {
		a.AddWarning(w)
	}
	if !resp.Allowed {
		code, msg, reason := http.StatusBadRequest, "without explanation", ""
		if st := resp.Status; st != nil {
			if st.Code >= 400 {
				code = st.Code
			}
			if st.Message != "" {
				msg = st.Message
			}
			reason = st.Reason
		}
		return admission.Denied(code, reason, fmt.Sprintf("admission webhook %q denied the request: %s", h.Name, msg))
	}
	if mutating && len(resp.Patch) > 0 && a.Object != nil {
		if resp.PatchType != "" && resp.PatchType != "JSONPatch" {
			return admission.Internal(fmt.Sprintf("webhook %q returned patchType %q, want JSONPatch", h.Name, resp.PatchType))
		}
		patch, err := jsonpatch.DecodePatch(resp.Patch)
		if err == nil {
			var doc, out []byte
			if doc, err = json.Marshal(a.Object); err == nil {
				if out, err = patch.Apply(doc); err == nil {
					var next api.Object
					if next, err = api.Decode(out); err == nil {
						for k := range a.Object {
							delete(a.Object, k)
						}
						for k, v := range next {
							a.Object[k] = v
						}
					}
				}
			}
		}
		if err != nil {
			return admission.Internal(fmt.Sprintf("applying the patch of webhook %q: %v", h.Name, err))
		}
	}
	return nil
}

// post sends the review of a to h and returns the response.
func (h Hook) post(ctx context.Context, a *admission.Attributes) (*response, error) {
	uid := uuid.NewString()
	rv := review{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview", Request: &request{
		UID: uid, Kind: gvk{a.Resource.Group, a.Resource.Version, a.Resource.Kind},
		Resource:    gvr{a.Resource.Group, a.Resource.Version, a.Resource.Name},
		SubResource: a.Subresource, Name: a.Name, Namespace: a.Namespace, Operation: string(a.Operation),
		Object: a.Object, OldObject: a.OldObject, DryRun: a.DryRun,
	}}
	body, err := json.Marshal(rv)
	if err != nil {
		return nil, err
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	tr := &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	if len(h.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(h.CABundle) {
			return nil, fmt.Errorf("caBundle holds no PEM certificate")
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 3<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("webhook answered %d", res.StatusCode)
	}
	var out review
	if err := json.Unmarshal(b, &out); err != nil || out.Response == nil {
		return nil, fmt.Errorf("webhook answered no AdmissionReview response: %v", err)
	}
	if out.Response.UID != uid {
		return nil, fmt.Errorf("webhook answered uid %q for request %q", out.Response.UID, uid)
	}
	return out.Response, nil
}
