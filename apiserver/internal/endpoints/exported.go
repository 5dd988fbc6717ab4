package endpoints

import (
	"context"
	"net/http"

	"github.com/capstan-io/capstan/apiserver/api"
)

// DecodeRequest reads r's body (JSON, YAML or Kubernetes protobuf) into an
// object, for handlers outside this package such as the auth APIs.
func DecodeRequest(r *http.Request) (api.Object, error) { return decodeObject(r) }

// Created wraps a handler's result so Wrap answers 201 Created.
func Created(body any) any { return response{code: http.StatusCreated, body: body} }

// checkWrite runs Config.CheckWrite on an object about to be written (not deleted).
func (h *Handler) checkWrite(ctx context.Context, req *request, o api.Object) error {
	if h.cfg.CheckWrite == nil || req.Verb == "delete" || req.Verb == "deletecollection" || o.DeletionTimestamp() != "" {
		return nil
	}
	return h.cfg.CheckWrite(ctx, req.res, o)
}
