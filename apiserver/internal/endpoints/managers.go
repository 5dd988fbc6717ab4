package endpoints

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capstan-io/capstan/apiserver/api"
)

// maxManagerLen bounds a field manager's name, as Kubernetes does.
const maxManagerLen = 128

// updateManager is the field manager of a write that is not an apply:
// ?fieldManager= when given (kubectl sends kubectl-edit, kubectl-create, ...),
// else the program name the User-Agent starts with, as Kubernetes derives it
// ("kubectl" from "kubectl/v1.32.0 (linux/amd64) kubernetes/...").
func updateManager(r *http.Request) string {
	if m := r.URL.Query().Get("fieldManager"); m != "" {
		return m
	}
	m, _, _ := strings.Cut(r.UserAgent(), "/")
	if len(m) > maxManagerLen {
		m = m[:maxManagerLen]
	}
	return m
}

// trackUpdate records in next's metadata.managedFields, under req.manager
// with operation Update, the fields that changed from cur (nil for a
// create), so a later server-side apply of those fields by another manager
// is a conflict naming this one. A subresource's writes (scale, status) are
// recorded with its name. Writes with no manager (applies, which the
// field manager tracks itself, and bindings) record nothing. A failure keeps
// cur's managedFields rather than failing the write, as in Kubernetes.
func (h *Handler) trackUpdate(req *request, cur, next api.Object) error {
	if req.manager == "" || req.res.Virtual {
		return nil
	}
	fm, err := fieldManager(req.res, req.Subresource)
	if err != nil {
		return err
	}
	if _, given := next.Meta()["managedFields"]; cur == nil && !given {
		if done, err := h.trackCreate(req, fm, next); done || err != nil {
			return err
		}
	}
	if cur == nil {
		cur = api.Object{"apiVersion": req.res.GroupVersion(), "kind": req.res.Kind, "metadata": map[string]any{}}
	}
	lu, err := toUnstructured(cur)
	if err != nil {
		return err
	}
	nu, err := toUnstructured(next)
	if err != nil {
		return err
	}
	// Only the managedFields of the result are taken: reading them from
	// the unstructured object spares a JSON round trip of the whole object.
	var meta map[string]any
	if u, ok := fm.UpdateNoErrors(lu, nu, req.manager).(*unstructured.Unstructured); ok {
		meta, _ = u.Object["metadata"].(map[string]any)
	} else {
		return errors.New("field manager returned a non-unstructured object")
	}
	if mf, ok := meta["managedFields"]; ok {
		next.Meta()["managedFields"] = mf
	} else {
		delete(next.Meta(), "managedFields")
	}
	return nil
}

// trackCreate is trackUpdate for a create whose body names no managedFields.
// With no manager before it, the field manager records every field of the
// new object (less the metadata it never records); createFields encodes that set straight
// from the object, which made tracking a small part of a create instead of
// the largest. done is false for an object createFields does not model,
// which it leaves to the field manager.
func (h *Handler) trackCreate(req *request, fm *typedManager, next api.Object) (done bool, err error) {
	empty, err := fm.emptyObject(req.res)
	if err != nil {
		return false, nil
	}
	fields, ok := createFields(empty.Schema(), empty.TypeRef(), next)
	if !ok {
		return false, nil
	}
	if fields == nil {
		delete(next.Meta(), "managedFields")
		return true, nil
	}
	entry := map[string]any{
		"manager":    req.manager,
		"operation":  "Update",
		"apiVersion": req.res.GroupVersion(),
		"time":       h.cfg.Now().UTC().Format(time.RFC3339),
		"fieldsType": "FieldsV1",
		"fieldsV1":   json.RawMessage(fields), // a create's object is only encoded after this
	}
	if req.Subresource != "" {
		entry["subresource"] = req.Subresource
	}
	next.Meta()["managedFields"] = []any{entry}
	return true, nil
}
