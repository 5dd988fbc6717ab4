package endpoints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/storage"
)

// deleteOptions is meta/v1 DeleteOptions.
type deleteOptions struct {
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *struct {
		UID             *string `json:"uid,omitempty"`
		ResourceVersion *string `json:"resourceVersion,omitempty"`
	} `json:"preconditions,omitempty"`
	PropagationPolicy *string  `json:"propagationPolicy,omitempty"`
	OrphanDependents  *bool    `json:"orphanDependents,omitempty"`
	DryRun            []string `json:"dryRun,omitempty"`
}

// Finalizers the garbage collector acts on.
const (
	orphanFinalizer     = "orphan"
	foregroundFinalizer = "foregroundDeletion"
)

// parseDeleteOptions reads DeleteOptions from the body, then lets query parameters override.
func parseDeleteOptions(r *http.Request) (*deleteOptions, bool, error) {
	opts := &deleteOptions{}
	body, err := readBody(r)
	if err != nil {
		return nil, false, err
	}
	if len(body) > 0 && mediaType(r) == protobufType {
		if body, err = protobufToJSON(body); err != nil {
			return nil, false, apierrors.NewBadRequest(err.Error())
		}
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, opts); err != nil {
			return nil, false, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was not valid DeleteOptions: %v", err))
		}
	}
	q := r.URL.Query()
	if s := q.Get("gracePeriodSeconds"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, apierrors.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", s))
		}
		opts.GracePeriodSeconds = &n
	}
	if s := q.Get("propagationPolicy"); s != "" {
		opts.PropagationPolicy = &s
	}
	if p := opts.PropagationPolicy; p != nil && *p != "Orphan" && *p != "Background" && *p != "Foreground" {
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("propagationPolicy %q is not one of Orphan, Background, Foreground", *p))
	}
	dry, err := parseDryRun(append(opts.DryRun, q["dryRun"]...))
	return opts, dry, err
}

func (h *Handler) delete(r *http.Request, req *request) (any, error) {
	opts, dry, err := parseDeleteOptions(r)
	if err != nil {
		return nil, err
	}
	return h.deleteOne(r.Context(), req, opts, dry)
}

// deleteOne removes an object, or marks it for deletion when finalizers or a
// grace period keep it, and returns its last state.
func (h *Handler) deleteOne(ctx context.Context, req *request, opts *deleteOptions, dry bool) (any, error) {
	for attempt := 0; ; attempt++ {
		cur, rev, err := h.load(ctx, req)
		if err != nil {
			return nil, err
		}
		if pc := opts.Preconditions; pc != nil {
			var uid, rv string
			if pc.UID != nil {
				uid = *pc.UID
			}
			if pc.ResourceVersion != nil {
				rv = *pc.ResourceVersion
			}
			if err := checkPreconditions(req, cur, uid, rv); err != nil {
				return nil, err
			}
		}
		if err := h.admit(ctx, req, admission.Delete, nil, cur, dry); err != nil {
			return nil, err
		}
		next, graceful := h.markForDeletion(req, cur, opts)
		if dry {
			return next, nil
		}
		if graceful && reflect.DeepEqual(cur, next) {
			return cur, nil
		}
		out, err := h.commit(ctx, req, next, rev, !graceful)
		if errors.Is(err, storage.ErrConflict) && attempt < maxUpdateRetries {
			continue
		}
		return out, storageError(err, req.res, req.Name)
	}
}

// markForDeletion decides between removing cur now (false) and keeping it
// marked with a deletionTimestamp (true, with the marked copy): finalizers,
// a namespace's spec.finalizers, and a running pod's grace period keep an object.
func (h *Handler) markForDeletion(req *request, cur api.Object, opts *deleteOptions) (api.Object, bool) {
	next := cur.DeepCopy()
	fins := next.Finalizers()
	policy := ""
	if opts.PropagationPolicy != nil {
		policy = *opts.PropagationPolicy
	} else if opts.OrphanDependents != nil && *opts.OrphanDependents {
		policy = "Orphan"
	}
	switch policy {
	case "Orphan":
		fins = addFinalizer(removeFinalizer(fins, foregroundFinalizer), orphanFinalizer)
	case "Foreground":
		fins = addFinalizer(removeFinalizer(fins, orphanFinalizer), foregroundFinalizer)
	}
	next.SetFinalizers(fins)
	m := next.Meta()
	now := h.cfg.Now().UTC()

	grace := int64(0)
	if req.res.Kind == "Pod" && api.NestedString(cur, "spec", "nodeName") != "" {
		grace = 30
		if g, ok := api.Nested(cur, "spec", "terminationGracePeriodSeconds").(json.Number); ok {
			grace = api.Int64(g)
		}
		if opts.GracePeriodSeconds != nil {
			grace = *opts.GracePeriodSeconds
		}
		if phase := api.NestedString(cur, "status", "phase"); phase == "Succeeded" || phase == "Failed" {
			grace = 0
		}
	}
	nsFinalizers := req.res.Kind == "Namespace" && len(api.NestedSlice(cur, "spec", "finalizers")) > 0
	if req.res.Kind == "Namespace" {
		api.SetNested(next, "Terminating", "status", "phase")
	}
	if len(fins) == 0 && grace == 0 && !nsFinalizers {
		return cur, false
	}
	if prev, ok := m["deletionGracePeriodSeconds"]; ok && api.Int64(prev) <= grace {
		return next, true // already counting down at least as fast
	}
	m["deletionTimestamp"] = now.Add(time.Duration(grace) * time.Second).Format(time.RFC3339)
	if cur.DeletionTimestamp() != "" && grace >= api.Int64(m["deletionGracePeriodSeconds"]) {
		m["deletionTimestamp"] = cur.DeletionTimestamp()
	}
	m["deletionGracePeriodSeconds"] = grace
	return next, true
}

func addFinalizer(fins []string, f string) []string {
	for _, x := range fins {
		if x == f {
			return fins
		}
	}
	return append(fins, f)
}

func removeFinalizer(fins []string, f string) []string {
	out := fins[:0:0]
	for _, x := range fins {
		if x != f {
			out = append(out, x)
		}
	}
	return out
}

func (h *Handler) deleteCollection(r *http.Request, req *request) (any, error) {
	opts, dry, err := parseDeleteOptions(r)
	if err != nil {
		return nil, err
	}
	p, err := parseListParams(r, req)
	if err != nil {
		return nil, err
	}
	res, err := h.collect(r, req, p)
	if err != nil {
		return nil, err
	}
	list := api.List{
		TypeMeta: api.TypeMeta{APIVersion: req.res.GroupVersion(), Kind: req.res.ListKind()},
		Items:    make([]json.RawMessage, 0, len(res.items)),
	}
	objs, err := decodeAll(res.items)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		one := *req
		one.RequestInfo = &RequestInfo{Group: req.Group, Version: req.Version, Namespace: o.Namespace(), Resource: req.Resource, Name: o.Name(), Verb: "delete"}
		v, err := h.deleteOne(r.Context(), &one, opts, dry)
		if apierrors.IsNotFound(err) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(v)
		list.Items = append(list.Items, b)
	}
	list.Metadata.ResourceVersion = strconv.FormatInt(res.rev, 10)
	return encodeList(list)
}
