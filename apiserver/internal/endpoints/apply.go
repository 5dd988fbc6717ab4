package endpoints

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	k8serrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/yaml"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/openapi"
)

// applyPatchType is server-side apply's media type.
const applyPatchType = "application/apply-patch+yaml"

// fieldManagers caches one managedfields.FieldManager per kind and schema
// (a CRD whose schema changes gets a new one; old ones stay, being small).
var fieldManagers sync.Map // fieldManagerKey → *typedManager

// typedManager is a kind's field manager and the type converter it was built on.
type typedManager struct {
	*managedfields.FieldManager
	types managedfields.TypeConverter

	emptyOnce sync.Once
	empty     *typed.TypedValue // an object of the kind with nothing set
	emptyErr  error
}

// emptyObject is the typed object a create is compared with.
func (tm *typedManager) emptyObject(r *api.Resource) (*typed.TypedValue, error) {
	tm.emptyOnce.Do(func() {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": r.GroupVersion(), "kind": r.Kind, "metadata": map[string]any{}}}
		tm.empty, tm.emptyErr = tm.types.ObjectToTyped(u, typed.AllowDuplicates)
	})
	return tm.empty, tm.emptyErr
}

type fieldManagerKey struct {
	group, version, kind, subresource string
	schema                            [sha256.Size]byte
}

// fieldManager returns the field manager of r's writes through subresource
// ("" for the main resource), typed by r's schema so lists merge by their
// keys (x-kubernetes-patch-merge-key). A subresource's managers are recorded
// with its name, as Kubernetes records them.
func fieldManager(r *api.Resource, subresource string) (*typedManager, error) {
	key := fieldManagerKey{r.Group, r.Version, r.Kind, subresource, sha256.Sum256(r.Schema)}
	if fm, ok := fieldManagers.Load(key); ok {
		return fm.(*typedManager), nil
	}
	defs := map[string]*spec.Schema{}
	for name, s := range openapi.ComponentSchemas([]*api.Resource{r}) {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		var sc spec.Schema
		if err := json.Unmarshal(b, &sc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		defs[name] = &sc
	}
	tc, err := managedfields.NewTypeConverter(defs, len(r.Schema) > 0)
	if err != nil {
		return nil, fmt.Errorf("type converter of %s: %w", r.GroupResource(), err)
	}
	gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	conv := sameVersion{}
	var fm *managedfields.FieldManager
	if len(r.Schema) > 0 {
		fm, err = managedfields.NewDefaultCRDFieldManager(tc, conv, conv, conv, gvk, gvk.GroupVersion(), subresource, nil)
	} else {
		fm, err = managedfields.NewDefaultFieldManager(tc, conv, conv, conv, gvk, gvk.GroupVersion(), subresource, nil)
	}
	if err != nil {
		return nil, err
	}
	tm := &typedManager{FieldManager: fm, types: tc}
	fieldManagers.Store(key, tm)
	return tm, nil
}

// sameVersion is the object converter, defaulter and creater of a hub that
// serves each kind in one version: conversion is the identity, and defaulting
// is left to admission.
type sameVersion struct{}

func (sameVersion) Convert(in, out, _ any) error {
	u, ok1 := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return errors.New("only unstructured objects convert")
	}
	o.Object = runtime.DeepCopyJSON(u.Object)
	return nil
}
func (sameVersion) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (sameVersion) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
func (sameVersion) Default(runtime.Object) {}
func (sameVersion) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// toUnstructured converts between the hub's objects and apimachinery's.
func toUnstructured(o api.Object) (*unstructured.Unstructured, error) {
	if v, ok := unstructuredValue(map[string]any(o)); ok {
		return &unstructured.Unstructured{Object: v.(map[string]any)}, nil
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return u, nil
}

// unstructuredValue deep-copies a decoded JSON value with its numbers
// (json.Number) as int64 or float64, which is what unstructured's JSON
// decoding makes of them, without the JSON round trip. ok is false for a
// type a JSON decoder does not produce; callers then take the round trip.
func unstructuredValue(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			c, ok := unstructuredValue(x)
			if !ok {
				return nil, false
			}
			m[k] = c
		}
		return m, true
	case api.Object:
		return unstructuredValue(map[string]any(t))
	case []any:
		l := make([]any, len(t))
		for i, x := range t {
			c, ok := unstructuredValue(x)
			if !ok {
				return nil, false
			}
			l[i] = c
		}
		return l, true
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, true
		}
		f, err := t.Float64()
		return f, err == nil
	case string, bool, nil, int64, float64:
		return t, true
	}
	return nil, false
}

func fromRuntime(obj runtime.Object) (api.Object, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return api.Decode(b)
}

// applyManager reads ?fieldManager (required for apply) and ?force.
func applyManager(r *http.Request) (string, bool, error) {
	q := r.URL.Query()
	m := q.Get("fieldManager")
	if m == "" {
		return "", false, apierrors.NewBadRequest("PATCH, application/apply-patch+yaml requires fieldManager to be set")
	}
	force := q.Get("force") == "true"
	return m, force, nil
}

// apply serves server-side apply: the applied configuration is merged into the
// live object (or a new one) by managedfields, which tracks each manager's
// fields in metadata.managedFields and reports conflicts as 409.
func (h *Handler) apply(r *http.Request, req *request, body []byte, dry bool) (any, error) {
	manager, force, err := applyManager(r)
	if err != nil {
		return nil, err
	}
	req.manager = "" // the field manager's Apply records this write
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	applied, err := api.Decode(js)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the applied configuration is not a JSON object: %v", err))
	}
	if err := checkTypeMeta(req, applied); err != nil {
		return nil, err
	}
	if err := checkName(req, applied); err != nil {
		return nil, err
	}
	fm, err := fieldManager(req.res, "")
	if err != nil {
		return nil, err
	}
	au, err := toUnstructured(applied)
	if err != nil {
		return nil, err
	}
	merge := func(live api.Object) (api.Object, error) {
		lu, err := toUnstructured(live)
		if err != nil {
			return nil, err
		}
		out, err := fm.Apply(lu, au, manager, force)
		if err != nil {
			return nil, statusFromK8s(err)
		}
		return fromRuntime(out)
	}
	if _, _, err := h.load(r.Context(), req); apierrors.IsNotFound(err) {
		o, err := merge(api.Object{"apiVersion": req.res.GroupVersion(), "kind": req.res.Kind, "metadata": map[string]any{"name": req.Name, "namespace": req.Namespace}})
		if err != nil {
			return nil, err
		}
		return h.createObject(r.Context(), req, o, dry)
	}
	return h.guaranteedUpdate(r.Context(), req, dry, func(cur api.Object) (api.Object, error) { return merge(cur) })
}

// statusFromK8s maps an apimachinery API error (an apply conflict) onto our Status.
func statusFromK8s(err error) error {
	var ks k8serrors.APIStatus
	if !errors.As(err, &ks) {
		return apierrors.NewBadRequest(err.Error())
	}
	st := ks.Status()
	var details *api.StatusDetails
	if d := st.Details; d != nil {
		details = &api.StatusDetails{Name: d.Name, Group: d.Group, Kind: d.Kind}
		for _, c := range d.Causes {
			details.Causes = append(details.Causes, api.StatusCause{Type: string(c.Type), Message: c.Message, Field: c.Field})
		}
	}
	return apierrors.New(int(st.Code), string(st.Reason), st.Message, details)
}
