package rules

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/apiserver/api"
)

func validatePod(o api.Object) field.ErrorList {
	spec, _ := o["spec"].(map[string]any)
	return validatePodSpec(spec, field.NewPath("spec"))
}

// validatePodSpec checks a pod's (or pod template's) spec.
func validatePodSpec(spec map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	containers, _ := spec["containers"].([]any)
	if len(containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), ""))
	}
	names := sets.New[string]()
	for _, list := range []string{"initContainers", "containers"} {
		cs, _ := spec[list].([]any)
		for i, c := range cs {
			cm, _ := c.(map[string]any)
			errs = append(errs, validateContainer(cm, p.Child(list).Index(i), names)...)
		}
	}
	return errs
}

func validateContainer(c map[string]any, p *field.Path, names sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	name, _ := c["name"].(string)
	switch {
	case name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case names.Has(name):
		errs = append(errs, field.Duplicate(p.Child("name"), name))
	default:
		for _, msg := range validation.IsDNS1123Label(name) {
			errs = append(errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
	names.Insert(name)
	if img, _ := c["image"].(string); img == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	for _, kind := range []string{"limits", "requests"} {
		q, _ := api.Nested(c, "resources", kind).(map[string]any)
		for _, k := range sortedKeys(q) {
			if err := validateQuantity(q[k]); err != nil {
				errs = append(errs, field.Invalid(p.Child("resources", kind).Key(k), plainValue(q[k]), err.Error()))
			}
		}
	}
	ports, _ := c["ports"].([]any)
	portNames := sets.New[string]()
	for i, pv := range ports {
		pm, _ := pv.(map[string]any)
		if n, _ := pm["name"].(string); n != "" {
			pp := p.Child("ports").Index(i).Child("name")
			if portNames.Has(n) {
				errs = append(errs, field.Duplicate(pp, n))
			}
			portNames.Insert(n)
			for _, msg := range validation.IsValidPortName(n) {
				errs = append(errs, field.Invalid(pp, n, msg))
			}
		}
		if pm["containerPort"] == nil {
			errs = append(errs, field.Required(p.Child("ports").Index(i).Child("containerPort"), ""))
		}
	}
	return errs
}

// validateQuantity parses a resource quantity given as a string or a number.
func validateQuantity(v any) error {
	switch t := v.(type) {
	case string:
		_, err := resource.ParseQuantity(t)
		return err
	case json.Number:
		_, err := resource.ParseQuantity(t.String())
		return err
	}
	return resource.ErrFormatWrong
}

// validatePodUpdate allows only what Kubernetes lets change in a running pod's spec.
func validatePodUpdate(o, old api.Object) field.ErrorList {
	cur, _ := api.DeepCopyValue(o["spec"]).(map[string]any)
	prev, _ := api.DeepCopyValue(old["spec"]).(map[string]any)
	if cur == nil || prev == nil {
		return nil
	}
	// Mutable: container images, activeDeadlineSeconds, added tolerations,
	// terminationGracePeriodSeconds; nodeName is set once by the binding.
	for _, list := range []string{"containers", "initContainers"} {
		a, _ := cur[list].([]any)
		b, _ := prev[list].([]any)
		if len(a) == len(b) {
			for i := range a {
				am, _ := a[i].(map[string]any)
				bm, _ := b[i].(map[string]any)
				if am != nil && bm != nil {
					am["image"] = bm["image"]
				}
			}
		}
	}
	mutable := []string{"activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"}
	if prev["nodeName"] == nil {
		mutable = append(mutable, "nodeName")
	}
	for _, k := range mutable {
		delete(cur, k)
		delete(prev, k)
	}
	if reflect.DeepEqual(cur, prev) {
		return nil
	}

	return field.ErrorList{field.Forbidden(field.NewPath("spec"), "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")}
}
