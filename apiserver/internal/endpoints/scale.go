package endpoints

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// toScale renders the autoscaling/v1 Scale view of a Deployment or ReplicaSet.
func toScale(req *request, o api.Object) *api.Scale {
	m := o.Meta()
	meta := map[string]any{"name": m["name"], "namespace": m["namespace"], "uid": m["uid"], "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"]}
	s := &api.Scale{
		TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		Metadata: meta,
		Spec:     api.ScaleSpec{Replicas: api.Int64(api.Nested(o, "spec", "replicas"))},
		Status:   api.ScaleStatus{Replicas: api.Int64(api.Nested(o, "status", "replicas"))},
	}
	if req.strat.ScaleSelector != nil {
		s.Status.Selector = req.strat.ScaleSelector(o)
	}
	return s
}

// scale serves GET, PUT and PATCH of .../{name}/scale by reading and writing spec.replicas.
func (h *Handler) scale(w http.ResponseWriter, r *http.Request, req *request) (any, error) {
	switch req.Verb {
	case "get":
		o, _, err := h.load(r.Context(), req)
		if err != nil {
			return nil, err
		}
		return toScale(req, o), nil
	case "update", "patch":
	default:
		return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
	}
	dry, err := dryRun(r)
	if err != nil {
		return nil, err
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	var p patcher
	if req.Verb == "patch" {
		if p, err = newPatcher(r, req, body); err != nil {
			return nil, err
		}
	} else if mt := mediaType(r); mt != "application/json" && mt != "" {
		return nil, apierrors.NewUnsupportedMediaType(mt)
	}
	o, err := h.guaranteedUpdate(r.Context(), req, dry, func(cur api.Object) (api.Object, error) {
		cs := toScale(req, cur)
		cur2, _ := json.Marshal(cs)
		next := body
		if p != nil {
			if next, err = p(cur2); err != nil {
				return nil, apierrors.New(http.StatusUnprocessableEntity, apierrors.ReasonInvalid, fmt.Sprintf("the patch could not be applied: %v", err), nil)
			}
		}
		var want api.Scale
		if err := json.Unmarshal(next, &want); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was not a valid Scale: %v", err))
		}
		if want.Spec.Replicas < 0 {
			return nil, apierrors.NewInvalid("Scale", "autoscaling", req.Name, []apierrors.FieldError{{
				Field: "spec.replicas", Reason: "FieldValueInvalid",
				Message: fmt.Sprintf("Invalid value: %d: must be greater than or equal to 0", want.Spec.Replicas),
			}})
		}
		rv, _ := want.Metadata["resourceVersion"].(string)
		if err := checkPreconditions(req, cur, "", rv); err != nil {
			return nil, err
		}
		api.SetNested(cur, want.Spec.Replicas, "spec", "replicas")
		return cur, nil
	})
	if err != nil {
		return nil, err
	}
	return toScale(req, o), nil
}
