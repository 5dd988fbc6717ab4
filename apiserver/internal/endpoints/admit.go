package endpoints

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// parseFieldValidation reads ?fieldValidation=Strict|Warn|Ignore (Warn when absent).
func parseFieldValidation(r *http.Request) (admission.FieldValidation, error) {
	switch v := admission.FieldValidation(r.URL.Query().Get("fieldValidation")); v {
	case "":
		return admission.Warn, nil
	case admission.Strict, admission.Warn, admission.Ignore:
		return v, nil
	default:
		return "", apierrors.NewBadRequest(fmt.Sprintf("fieldValidation must be one of \"Ignore\", \"Strict\" or \"Warn\", got %q", string(v)))
	}
}

// admit runs the admission chain on a write of the request's object (obj is nil
// on delete; old is nil on create). The warnings of the last run are kept for
// the response, so a retried update does not repeat them.
func (h *Handler) admit(ctx context.Context, req *request, op admission.Operation, obj, old api.Object, dry bool) error {
	if h.cfg.Admission == nil {
		return nil
	}
	a := &admission.Attributes{
		Operation:       op,
		Resource:        req.res,
		Subresource:     req.Subresource,
		Namespace:       req.Namespace,
		Name:            req.Name,
		Object:          obj,
		OldObject:       old,
		FieldValidation: req.fieldValidation,
		DryRun:          dry,
	}
	err := h.cfg.Admission.Admit(ctx, a)
	req.warnings = a.Warnings()
	if err == nil {
		return nil
	}
	ae, ok := admission.AsError(err)
	if !ok {
		return err
	}
	switch ae.Kind {
	case admission.KindBadRequest:
		var details *api.StatusDetails
		if len(ae.Errs) > 0 {
			details = &api.StatusDetails{Name: req.Name, Group: req.res.Group, Kind: req.res.Kind}
			for _, fe := range ae.Errs {
				details.Causes = append(details.Causes, api.StatusCause{Type: string(fe.Type), Message: fe.ErrorBody(), Field: fe.Field})
			}
		}
		return apierrors.New(http.StatusBadRequest, apierrors.ReasonBadRequest, ae.Error(), details)
	case admission.KindForbidden:
		return apierrors.NewForbidden(ae.Error())
	case admission.KindDenied:
		return apierrors.New(ae.Code, ae.Reason, ae.Error(), nil)
	case admission.KindInternal:
		return apierrors.NewInternalError(ae)
	}
	return invalid(req, req.Name, ae.Errs)
}

// writeWarnings sends each admission warning as an HTTP Warning header, as
// kube-apiserver does: `299 - "unknown field \"spec.foo\""`.
func writeWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(msg))
	}
}
