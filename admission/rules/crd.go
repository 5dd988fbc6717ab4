package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
)

// validateCRD checks a CustomResourceDefinition as the apiextensions
// validation does for the parts Capstan serves: names, scope, versions with
// exactly one storage version, and schemas that compile.
func validateCRD(o api.Object) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	group := api.NestedString(o, "spec", "group")
	plural := api.NestedString(o, "spec", "names", "plural")
	kind := api.NestedString(o, "spec", "names", "kind")
	switch {
	case group == "":
		errs = append(errs, field.Required(sp.Child("group"), ""))
	case len(strings.Split(group, ".")) < 2:
		errs = append(errs, field.Invalid(sp.Child("group"), group, "should be a domain with at least one dot"))
	}
	if plural == "" {
		errs = append(errs, field.Required(sp.Child("names", "plural"), ""))
	} else {
		for _, msg := range validation.IsDNS1035Label(plural) {
			errs = append(errs, field.Invalid(sp.Child("names", "plural"), plural, msg))
		}
	}
	if kind == "" {
		errs = append(errs, field.Required(sp.Child("names", "kind"), ""))
	}
	if plural != "" && group != "" && o.Name() != plural+"."+group {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), o.Name(), `must be spec.names.plural+"."+spec.group`))
	}
	if scope := api.NestedString(o, "spec", "scope"); scope != "Cluster" && scope != "Namespaced" {
		errs = append(errs, field.NotSupported(sp.Child("scope"), scope, []string{"Cluster", "Namespaced"}))
	}
	versions, _ := api.Nested(o, "spec", "versions").([]any)
	if len(versions) == 0 {
		errs = append(errs, field.Required(sp.Child("versions"), "must have exactly one version marked as storage version"))
	}
	storage := 0
	seen := map[string]bool{}
	for i, v := range versions {
		vm, _ := v.(map[string]any)
		vp := sp.Child("versions").Index(i)
		name, _ := vm["name"].(string)
		switch {
		case name == "":
			errs = append(errs, field.Required(vp.Child("name"), ""))
		case seen[name]:
			errs = append(errs, field.Duplicate(vp.Child("name"), name))
		default:
			seen[name] = true
			for _, msg := range validation.IsDNS1035Label(name) {
				errs = append(errs, field.Invalid(vp.Child("name"), name, msg))
			}
		}
		if b, _ := vm["storage"].(bool); b {
			storage++
		}
		oas, _ := api.Nested(vm, "schema", "openAPIV3Schema").(map[string]any)
		if oas == nil {
			errs = append(errs, field.Required(vp.Child("schema", "openAPIV3Schema"), "schemas are required"))
			continue
		}
		if t, _ := oas["type"].(string); t != "object" {
			errs = append(errs, field.NotSupported(vp.Child("schema", "openAPIV3Schema", "type"), t, []string{"object"}))
			continue
		}
		doc, err := schema.FromCRD(api.DeepCopyValue(oas).(map[string]any), group, name, kind)
		if err == nil {
			err = schema.Check(schema.Kind{Group: group, Version: name, Kind: kind}, doc)
		}
		if err != nil {
			errs = append(errs, field.Invalid(vp.Child("schema", "openAPIV3Schema"), "", fmt.Sprintf("invalid schema: %v", err)))
		}
	}
	if len(versions) > 0 && storage != 1 {
		errs = append(errs, field.Invalid(sp.Child("versions"), storage, "must have exactly one version marked as storage version"))
	}
	return errs
}

// validateCRDUpdate: a CRD's group and scope cannot change.
func validateCRDUpdate(o, old api.Object) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []string{"group", "scope"} {
		if cur, prev := api.NestedString(o, "spec", k), api.NestedString(old, "spec", k); cur != prev {
			errs = append(errs, field.Invalid(field.NewPath("spec", k), cur, "field is immutable"))
		}
	}
	return errs
}
