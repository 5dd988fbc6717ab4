package endpoints

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// bind serves POST pods/{name}/binding: it sets spec.nodeName once.
func (h *Handler) bind(r *http.Request, req *request) (any, error) {
	dry, err := dryRun(r)
	if err != nil {
		return nil, err
	}
	body, err := decodeObject(r)
	if err != nil {
		return nil, err
	}
	if body.Name() != "" && body.Name() != req.Name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the binding (%s) does not match the pod (%s)", body.Name(), req.Name))
	}
	node := api.NestedString(body, "target", "name")
	if node == "" {
		return nil, apierrors.NewInvalid("Binding", "", req.Name, []apierrors.FieldError{{Field: "target.name", Reason: "FieldValueRequired", Message: "Required value"}})
	}
	uid := api.NestedString(body, "metadata", "uid")
	_, err = h.guaranteedUpdate(r.Context(), req, dry, func(cur api.Object) (api.Object, error) {
		if err := checkPreconditions(req, cur, uid, ""); err != nil {
			return nil, err
		}
		if cur.DeletionTimestamp() != "" {
			return nil, apierrors.NewConflict(req.gr, req.Name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", req.Name))
		}
		if n := api.NestedString(cur, "spec", "nodeName"); n != "" {
			return nil, apierrors.NewConflict(req.gr, req.Name, fmt.Errorf("pod %s is already assigned to node %q", req.Name, n))
		}
		api.SetNested(cur, node, "spec", "nodeName")
		setPodScheduled(cur, h.cfg.Now())
		return cur, nil
	})
	if err != nil {
		return nil, err
	}
	return response{code: http.StatusCreated, body: json.RawMessage(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`)}, nil
}

// setPodScheduled records condition PodScheduled=True, as the binding endpoint does in Kubernetes.
func setPodScheduled(pod api.Object, now time.Time) {
	st := api.NestedMap(pod, "status")
	if st == nil {
		st = map[string]any{}
		pod["status"] = st
	}
	conds := api.NestedSlice(st, "conditions")
	out := conds[:0:0]
	for _, c := range conds {
		if m, _ := c.(map[string]any); api.NestedString(m, "type") != "PodScheduled" {
			out = append(out, c)
		}
	}
	out = append(out, map[string]any{"type": "PodScheduled", "status": "True", "lastProbeTime": nil, "lastTransitionTime": now.UTC().Format(time.RFC3339)})
	st["conditions"] = out
}
