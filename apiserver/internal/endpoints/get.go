package endpoints

import (
	"net/http"

	"github.com/capstan-io/capstan/apiserver/api"
)

func (h *Handler) get(r *http.Request, req *request) (any, error) {
	out, err := negotiate(r)
	if err != nil {
		return nil, err
	}
	kv, err := h.cfg.Store.Get(r.Context(), req.key())
	if err != nil {
		return nil, storageError(err, req.res, req.Name)
	}
	if out.table {
		o, err := decodeStored(kv.Value, kv.ModRevision)
		if err != nil {
			return nil, err
		}
		req.fromStorage(o)
		return h.table(req.res, []api.Object{o}, o.ResourceVersion(), out), nil
	}
	b, err := WithResourceVersion(kv.Value, kv.ModRevision)
	if err == nil {
		b, err = req.convertJSON(b)
	}
	return rawJSON(b), err
}
