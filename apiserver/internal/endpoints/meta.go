package endpoints

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// checkTypeMeta fills in a missing apiVersion and kind and rejects ones that do not match the URL.
func checkTypeMeta(req *request, o api.Object) error {
	if o.APIVersion() == "" {
		o["apiVersion"] = req.res.GroupVersion()
	}
	if o.Kind() == "" {
		o["kind"] = req.res.Kind
	}
	if o.APIVersion() != req.res.GroupVersion() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", o.APIVersion(), req.res.GroupVersion()))
	}
	if o.Kind() != req.res.Kind {
		return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", o.Kind(), req.res.Kind))
	}
	if _, ok := o["metadata"].(map[string]any); !ok && o["metadata"] != nil {
		return apierrors.NewBadRequest("metadata must be an object")
	}
	m := o.Meta()
	if ns, _ := m["namespace"].(string); req.res.Namespaced {
		if ns == "" {
			m["namespace"] = req.Namespace
		} else if ns != req.Namespace {
			return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else if ns != "" {
		delete(m, "namespace") // cluster-scoped kinds have no namespace
	}
	return nil
}

// checkName rejects a body whose name differs from the URL's.
func checkName(req *request, o api.Object) error {
	if o.Name() != req.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", o.Name(), req.Name))
	}
	return nil
}

// validateMeta checks names, labels and annotations as Kubernetes does.
func validateMeta(req *request, o api.Object) error {
	var errs field.ErrorList
	mp := field.NewPath("metadata")
	m := o.Meta()
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := m[k]; ok && v != nil {
			mm, isMap := v.(map[string]any)
			if !isMap {
				errs = append(errs, field.Invalid(mp.Child(k), v, "must be a map of strings"))
				continue
			}
			for kk, vv := range mm {
				if _, ok := vv.(string); !ok {
					errs = append(errs, field.Invalid(mp.Child(k).Key(kk), vv, "must be a string"))
				}
			}
		}
	}
	if len(errs) == 0 {
		errs = append(errs, metav1validation.ValidateLabels(o.Labels(), mp.Child("labels"))...)
		errs = append(errs, metavalidation.ValidateAnnotations(o.StringMap("annotations"), mp.Child("annotations"))...)
	}
	name := o.Name()
	if name == "" {
		errs = append(errs, field.Required(mp.Child("name"), "name or generateName is required"))
	} else {
		nameFn := metavalidation.NameIsDNSSubdomain
		if req.res.Kind == "Namespace" {
			nameFn = metavalidation.ValidateNamespaceName
		}
		for _, msg := range nameFn(name, false) {
			errs = append(errs, field.Invalid(mp.Child("name"), name, msg))
		}
	}
	if req.res.Namespaced {
		for _, msg := range metavalidation.ValidateNamespaceName(o.Namespace(), false) {
			errs = append(errs, field.Invalid(mp.Child("namespace"), o.Namespace(), msg))
		}
	}
	return invalid(req, name, errs)
}

// invalid turns field errors into a 422 Invalid Status, or nil.
func invalid(req *request, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	fes := make([]apierrors.FieldError, len(errs))
	for i, e := range errs {
		fes[i] = apierrors.FieldError{Field: e.Field, Reason: string(e.Type), Message: e.ErrorBody()}
	}
	return apierrors.NewInvalid(req.res.Kind, req.res.Group, name, fes)
}

// normalizeMeta drops empty metadata maps and lists, which Kubernetes omits,
// so `labels: {}` and no labels are the same object.
func normalizeMeta(o api.Object) {
	m := o.Meta()
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := m[k].(map[string]any); ok && len(v) == 0 || m[k] == nil {
			delete(m, k)
		}
	}
	for _, k := range []string{"finalizers", "ownerReferences", "managedFields"} {
		if v, ok := m[k].([]any); ok && len(v) == 0 || m[k] == nil {
			delete(m, k)
		}
	}
}

// stampCreate sets the server-owned metadata of a new object.
func stampCreate(req *request, o api.Object, now time.Time) {
	m := o.Meta()
	if o.Name() == "" {
		if gen, _ := m["generateName"].(string); gen != "" {
			m["name"] = gen + utilrand.String(5)
		}
	}
	m["uid"] = uuid.NewString()
	m["creationTimestamp"] = now.UTC().Format(time.RFC3339)
	delete(m, "deletionTimestamp")
	delete(m, "deletionGracePeriodSeconds")
	delete(m, "selfLink")
	if req.strat.TracksGeneration {
		m["generation"] = 1
	} else {
		delete(m, "generation")
	}
	if req.strat.PrepareForCreate != nil {
		req.strat.PrepareForCreate(o)
	}
	normalizeMeta(o)
}

// dryRun reads ?dryRun=All.
func dryRun(r *http.Request) (bool, error) {
	return parseDryRun(r.URL.Query()["dryRun"])
}

func parseDryRun(vals []string) (bool, error) {
	for _, v := range vals {
		if v != "All" {
			return false, apierrors.NewBadRequest(fmt.Sprintf("Invalid dryRun value %q: valid values are [All]", strings.Join(vals, ",")))
		}
	}
	return len(vals) > 0, nil
}
