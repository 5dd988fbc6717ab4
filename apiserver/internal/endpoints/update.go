package endpoints

import (
	"context"
	"errors"
	"net/http"
	"reflect"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/storage"
)

// maxUpdateRetries bounds the retries of an update that lost a race without
// the client asking for a specific resourceVersion.
const maxUpdateRetries = 16

// updateFunc computes the new object from the current one (a private copy).
type updateFunc func(cur api.Object) (api.Object, error)

func (h *Handler) update(r *http.Request, req *request) (any, error) {
	dry, err := dryRun(r)
	if err != nil {
		return nil, err
	}
	body, err := decodeObject(r)
	if err != nil {
		return nil, err
	}
	if err := checkTypeMeta(req, body); err != nil {
		return nil, err
	}
	if err := checkName(req, body); err != nil {
		return nil, err
	}
	o, err := h.guaranteedUpdate(r.Context(), req, dry, func(cur api.Object) (api.Object, error) {
		if err := checkPreconditions(req, cur, body.UID(), body.ResourceVersion()); err != nil {
			return nil, err
		}
		return body.DeepCopy(), nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// checkPreconditions enforces a client's uid and resourceVersion, when given.
func checkPreconditions(req *request, cur api.Object, uid, rv string) error {
	if uid != "" && uid != cur.UID() {
		return apierrors.NewConflict(req.gr, req.Name, errors.New("Precondition failed: UID in precondition: "+uid+", UID in object meta: "+cur.UID()))
	}
	if rv != "" && rv != cur.ResourceVersion() {
		return apierrors.NewConflict(req.gr, req.Name, errors.New(errModified))
	}
	return nil
}

// guaranteedUpdate reads the object, applies fn and writes the result with a
// precondition on the revision read, retrying when another writer got there first.
// A change that leaves the object as it was writes nothing.
func (h *Handler) guaranteedUpdate(ctx context.Context, req *request, dry bool, fn updateFunc) (api.Object, error) {
	for attempt := 0; ; attempt++ {
		cur, rev, err := h.load(ctx, req)
		if err != nil {
			return nil, err
		}
		next, err := fn(cur.DeepCopy())
		if err != nil {
			return nil, err
		}
		h.finishUpdate(req, cur, next)
		if err := validateMeta(req, next); err != nil {
			return nil, err
		}
		if err := h.admit(ctx, req, admission.Update, next, cur, dry); err != nil {
			return nil, err
		}
		bumpGeneration(req, cur, next) // after defaulting, so defaults are no spec change
		if err := h.trackUpdate(req, cur, next); err != nil {
			return nil, err
		}
		if err := h.checkWrite(ctx, req, next); err != nil {
			return nil, err
		}
		if reflect.DeepEqual(cur, next) {
			return cur, nil
		}

		if dry {
			return next, nil
		}
		out, err := h.commit(ctx, req, next, rev, shouldDeleteDuringUpdate(cur, next))
		if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateRetries {
			continue
		}
		return out, storageError(err, req.res, req.Name)
	}
}

// commit writes next over revision rev of the request's object, or deletes the
// object when del is set, and returns next stamped with the new revision.
// Storage errors come back unmapped, so callers can retry a lost race.
func (h *Handler) commit(ctx context.Context, req *request, next api.Object, rev int64, del bool) (api.Object, error) {
	var newRev int64
	var err error
	if del {
		newRev, err = h.cfg.Store.Delete(ctx, req.key(), rev)
	} else {
		var body []byte
		if body, err = req.encodeStored(next); err != nil {
			return nil, err
		}
		newRev, err = h.cfg.Store.Update(ctx, req.key(), body, rev)
	}
	if err != nil {
		return nil, err
	}
	if req.res.Kind == "Namespace" && req.res.Group == "" && h.cfg.Namespaces != nil {
		h.cfg.Namespaces.Observe(next.Name(), next.DeletionTimestamp() != "", del, newRev)
	}
	next.SetResourceVersion(newRev)
	return next, nil
}

// finishUpdate keeps what clients may not change and applies the subresource rules:
// the main resource cannot change status, /status changes only status, and
// /finalize changes only a namespace's spec.finalizers.
func (h *Handler) finishUpdate(req *request, cur, next api.Object) {
	switch req.Subresource {
	case "binding", "scale":
		// The handler changed exactly what the subresource owns.
	case "status":
		status, ok := next["status"]
		copyInto(next, cur)
		if ok {
			next["status"] = status
		} else {
			delete(next, "status")
		}
	case "finalize":
		fin := api.Nested(next, "spec", "finalizers")
		copyInto(next, cur)
		if fin == nil {
			fin = []any{}
		}
		api.SetNested(next, fin, "spec", "finalizers")
	default:
		if req.strat.HasStatus {
			if st, ok := cur["status"]; ok {
				next["status"] = api.DeepCopyValue(st)
			} else {
				delete(next, "status")
			}
		}
		if req.res.Kind == "Namespace" {
			if fin := api.Nested(cur, "spec", "finalizers"); fin != nil {
				api.SetNested(next, api.DeepCopyValue(fin), "spec", "finalizers")
			}
		}
	}
	normalizeMeta(next)
	cm, nm := cur.Meta(), next.Meta()
	for _, k := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "name", "namespace", "resourceVersion"} {
		if v, ok := cm[k]; ok {
			nm[k] = v
		} else {
			delete(nm, k)
		}
	}
	next["apiVersion"], next["kind"] = cur["apiVersion"], cur["kind"]
}

// bumpGeneration counts a change of spec in metadata.generation, for kinds that track it.
func bumpGeneration(req *request, cur, next api.Object) {
	if req.strat.TracksGeneration && !reflect.DeepEqual(cur["spec"], next["spec"]) {
		next.Meta()["generation"] = cur.Generation() + 1
	}
}

// copyInto replaces dst's content with a deep copy of src.
func copyInto(dst, src api.Object) {
	for k := range dst {
		delete(dst, k)
	}
	for k, v := range src.DeepCopy() {
		dst[k] = v
	}
}

// shouldDeleteDuringUpdate: removing the last finalizer of an object being deleted removes it.
func shouldDeleteDuringUpdate(cur, next api.Object) bool {
	return next.DeletionTimestamp() != "" && len(next.Finalizers()) == 0 && len(cur.Finalizers()) > 0
}
