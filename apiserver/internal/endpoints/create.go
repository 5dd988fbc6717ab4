package endpoints

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/storage"
)

func (h *Handler) create(r *http.Request, req *request) (any, error) {
	dry, err := dryRun(r)
	if err != nil {
		return nil, err
	}
	o, err := decodeObject(r)
	if err != nil {
		return nil, err
	}
	if err := checkTypeMeta(req, o); err != nil {
		return nil, err
	}
	if o.ResourceVersion() != "" {
		return nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	return h.createObject(r.Context(), req, o, dry)
}

// createObject admits and stores a new object (a POST, or an apply of an
// object that does not exist yet).
func (h *Handler) createObject(ctx context.Context, req *request, o api.Object, dry bool) (any, error) {
	generated := o.Name() == ""
	stampCreate(req, o, h.cfg.Now())
	req.Name = o.Name()
	if err := validateMeta(req, o); err != nil {
		return nil, err
	}
	if err := h.admitNamespace(ctx, req); err != nil {
		return nil, err
	}
	if err := h.admit(ctx, req, admission.Create, o, nil, dry); err != nil {
		return nil, err
	}
	if err := h.checkWrite(ctx, req, o); err != nil {
		return nil, err
	}
	if err := h.trackUpdate(req, nil, o); err != nil {
		return nil, err
	}
	if dry {
		return response{code: http.StatusCreated, body: o}, nil
	}
	for attempt := 0; ; attempt++ {
		body, err := req.encodeStored(o)
		if err != nil {
			return nil, err
		}
		rev, err := h.cfg.Store.Create(ctx, req.key(), body)
		if errors.Is(err, storage.ErrExists) && generated && attempt < 3 {
			stampCreate(req, o, h.cfg.Now()) // another generated name
			req.Name = o.Name()
			continue
		}
		if err != nil {
			return nil, storageError(err, req.res, req.Name)
		}
		out, err := WithResourceVersion(body, rev)
		if err == nil {
			out, err = req.convertJSON(out)
		}
		if err != nil {
			return nil, err
		}
		return response{code: http.StatusCreated, body: rawJSON(out)}, nil
	}
}

// admitNamespace refuses objects in a namespace that does not exist or is being deleted.
func (h *Handler) admitNamespace(ctx context.Context, req *request) error {
	if !req.res.Namespaced {
		return nil
	}
	var known, terminating bool
	if h.cfg.Namespaces != nil {
		known, terminating = h.cfg.Namespaces.Lookup(req.Namespace)
	}
	if !known {
		nsRes := &api.Resource{Version: "v1", Name: "namespaces"}
		kv, err := h.cfg.Store.Get(ctx, nsRes.Key("", req.Namespace))
		if errors.Is(err, storage.ErrNotFound) {
			return apierrors.NewNotFound(apierrors.Resource{Resource: "namespaces"}, req.Namespace)
		}
		if err != nil {
			return err
		}
		ns, err := api.Decode(kv.Value)
		if err != nil {
			return err
		}
		terminating = ns.DeletionTimestamp() != ""
	}
	if terminating {
		return apierrors.NewForbidden(fmt.Sprintf("%s %q is forbidden: unable to create new content in namespace %s because it is being terminated", req.gr, req.Name, req.Namespace))
	}
	return nil
}
