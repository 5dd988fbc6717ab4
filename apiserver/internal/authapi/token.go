package authapi

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/auth/authn"
	"github.com/capstan-io/capstan/storage"
)

// Bounds on a requested token lifetime, as kube-apiserver's defaults.
const (
	minTokenExpiration     = 10 * time.Minute
	defaultTokenExpiration = time.Hour
	maxTokenExpiration     = 48 * time.Hour
)

type tokenRequest struct {
	Metadata map[string]any `json:"metadata"`
	Spec     struct {
		Audiences         []string `json:"audiences"`
		ExpirationSeconds *int64   `json:"expirationSeconds"`
		BoundObjectRef    *struct {
			Kind, APIVersion, Name string
			UID                    string `json:"uid"`
		} `json:"boundObjectRef"`
	} `json:"spec"`
}

// CreateToken serves POST /api/v1/namespaces/{namespace}/serviceaccounts/{name}/token.
func (h *Handler) CreateToken(w http.ResponseWriter, r *http.Request) (any, error) {
	ns, name := chi.URLParam(r, "namespace"), chi.URLParam(r, "name")
	var req tokenRequest
	if err := decode(r, "TokenRequest", &req); err != nil {
		return nil, err
	}
	sa, rev, err := h.read(r, serviceAccounts, ns, name)
	if err != nil {
		return nil, err
	}
	exp := defaultTokenExpiration
	if req.Spec.ExpirationSeconds != nil {
		exp = time.Duration(*req.Spec.ExpirationSeconds) * time.Second
		if exp < minTokenExpiration {
			return nil, apierrors.NewInvalid("TokenRequest", "authentication.k8s.io", name, []apierrors.FieldError{{
				Field: "spec.expirationSeconds", Reason: "FieldValueInvalid", Message: "may not specify a duration less than 10 minutes"}})
		}
		exp = min(exp, maxTokenExpiration)
	}
	tr := authn.TokenRequest{Namespace: ns, ServiceAccount: authn.Ref{Name: name, UID: sa.UID()}, Audiences: req.Spec.Audiences, Expiration: exp}
	if b := req.Spec.BoundObjectRef; b != nil {
		if b.Kind != "Pod" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind a token to a %s; only Pod is supported", b.Kind))
		}
		pod, prev, err := h.read(r, pods, ns, b.Name)
		if err != nil {
			return nil, err
		}
		if b.UID != "" && b.UID != pod.UID() {
			return nil, apierrors.NewConflict(apierrors.Resource{Resource: "pods"}, b.Name, fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record (%s)", b.UID, pod.UID()))
		}
		tr.Pod = &authn.Ref{Name: b.Name, UID: pod.UID()}
		h.cfg.Objects.Pods.Observe(ns, b.Name, pod.UID(), prev)
	}
	token, expiry, err := h.cfg.ServiceAccounts.Issue(tr)
	if err != nil {
		return nil, err
	}
	h.cfg.Objects.ServiceAccounts.Observe(ns, name, sa.UID(), rev)
	out := stamp("authentication.k8s.io/v1", "TokenRequest", map[string]any{"name": name, "namespace": ns})
	spec := map[string]any{"audiences": tr.Audiences, "expirationSeconds": int64(exp / time.Second), "boundObjectRef": req.Spec.BoundObjectRef}
	if len(tr.Audiences) == 0 {
		spec["audiences"] = []string{}
	}
	out["spec"] = spec
	out["status"] = map[string]any{"token": token, "expirationTimestamp": expiry.UTC().Format(time.RFC3339)}
	return endpoints.Created(out), nil
}

// read gets one object the token is for.
func (h *Handler) read(r *http.Request, res *api.Resource, ns, name string) (api.Object, int64, error) {
	kv, err := h.cfg.Store.Get(r.Context(), res.Key(ns, name))
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, 0, apierrors.NewNotFound(apierrors.Resource{Resource: res.Name}, name)
		}
		return nil, 0, err
	}
	o, err := api.Decode(kv.Value)
	if err != nil {
		return nil, 0, err
	}
	return o, kv.ModRevision, nil
}
