package endpoints

import (
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// Patch media types.
const (
	jsonPatchType      = "application/json-patch+json"
	mergePatchType     = "application/merge-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
)

// patcher applies one patch document to a JSON object.
type patcher func(original []byte) ([]byte, error)

// newPatcher checks the patch type and body and returns how to apply them.
func newPatcher(r *http.Request, req *request, body []byte) (patcher, error) {
	switch mt := mediaType(r); mt {
	case jsonPatchType:
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was not a valid JSON patch: %v", err))
		}
		return func(orig []byte) ([]byte, error) { return p.Apply(orig) }, nil
	case mergePatchType:
		if !json.Valid(body) {
			return nil, apierrors.NewBadRequest("the body of the request was not valid JSON")
		}
		return func(orig []byte) ([]byte, error) { return jsonpatch.MergePatch(orig, body) }, nil
	case strategicPatchType:
		if req.strat.PatchType == nil {
			return nil, apierrors.NewUnsupportedMediaType(mt)
		}
		var pm map[string]any
		if err := json.Unmarshal(body, &pm); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was not a valid JSON object: %v", err))
		}
		schema := req.strat.PatchType()
		return func(orig []byte) ([]byte, error) { return strategicpatch.StrategicMergePatch(orig, body, schema) }, nil
	default:
		return nil, apierrors.NewUnsupportedMediaType(mt)
	}
}

// applyPatch patches cur and decodes the result, refusing changes to identity fields.
func applyPatch(req *request, p patcher, cur api.Object) (api.Object, error) {
	orig, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	out, err := p(orig)
	if err != nil {
		return nil, apierrors.New(http.StatusUnprocessableEntity, apierrors.ReasonInvalid, fmt.Sprintf("the patch could not be applied: %v", err), nil)
	}
	next, err := api.Decode(out)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the patched object is not a JSON object: %v", err))
	}
	if next.Name() != cur.Name() || next.Namespace() != cur.Namespace() {
		return nil, apierrors.NewBadRequest("metadata.name and metadata.namespace cannot be changed by a patch")
	}
	if next.APIVersion() != cur.APIVersion() || next.Kind() != cur.Kind() {
		return nil, apierrors.NewBadRequest("apiVersion and kind cannot be changed by a patch")
	}
	return next, nil
}

func (h *Handler) patch(r *http.Request, req *request) (any, error) {
	dry, err := dryRun(r)
	if err != nil {
		return nil, err
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if mediaType(r) == applyPatchType {
		return h.apply(r, req, body, dry)
	}
	p, err := newPatcher(r, req, body)
	if err != nil {
		return nil, err
	}
	return h.guaranteedUpdate(r.Context(), req, dry, func(cur api.Object) (api.Object, error) {
		rv := cur.ResourceVersion()
		next, err := applyPatch(req, p, cur)
		if err != nil {
			return nil, err
		}
		// A patch that names a resourceVersion is a precondition on it.
		if nrv := next.ResourceVersion(); nrv != "" && nrv != rv {
			return nil, checkPreconditions(req, cur, "", nrv)
		}
		return next, nil
	})
}
