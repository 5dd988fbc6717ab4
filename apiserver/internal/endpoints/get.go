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
	o, _, err := h.load(r.Context(), req)
	if err != nil {
		return nil, err
	}
	if out.table {
		return h.table(req.res, []api.Object{o}, o.ResourceVersion(), out), nil
	}
	return o, nil
}
