package endpoints

import (
	"errors"
	"net/http"
	"strings"

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
