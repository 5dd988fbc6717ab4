package rules

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/apiserver/api"
)

// validateService checks a Service's name (a DNS-1035 label) and ports.
func validateService(o api.Object) field.ErrorList {
	var errs field.ErrorList
	if name := o.Name(); name != "" {
		for _, msg := range validation.IsDNS1035Label(name) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	sp := field.NewPath("spec")
	ports, _ := api.Nested(o, "spec", "ports").([]any)
	if len(ports) == 0 && api.NestedString(o, "spec", "type") != "ExternalName" && api.NestedString(o, "spec", "clusterIP") != "None" {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	names := sets.New[string]()
	for i, pv := range ports {
		pm, _ := pv.(map[string]any)
		pp := sp.Child("ports").Index(i)
		n, _ := pm["name"].(string)
		if len(ports) > 1 && n == "" {
			errs = append(errs, field.Required(pp.Child("name"), ""))
		}
		if n != "" {
			if names.Has(n) {
				errs = append(errs, field.Duplicate(pp.Child("name"), n))
			}
			names.Insert(n)
		}
		if pm["port"] == nil {
			errs = append(errs, field.Required(pp.Child("port"), ""))
		}
	}
	return errs
}
