package rules

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/apiserver/api"
)

// validateWorkload checks a Deployment's or ReplicaSet's spec.
func validateWorkload(deployment bool) func(o api.Object) field.ErrorList {
	return func(o api.Object) field.ErrorList {
		sp := field.NewPath("spec")
		var errs field.ErrorList
		sel, selOK := selector(o)
		switch {
		case api.Nested(o, "spec", "selector") == nil:
			errs = append(errs, field.Required(sp.Child("selector"), ""))
		case !selOK:
			errs = append(errs, field.Invalid(sp.Child("selector"), api.Nested(o, "spec", "selector"), "invalid label selector"))
		default:
			errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, sp.Child("selector"))...)
			if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
				errs = append(errs, field.Invalid(sp.Child("selector"), api.Nested(o, "spec", "selector"), "empty selector is invalid for deployment"))
			}
		}
		tp := sp.Child("template")
		tmplLabels := stringMap(api.Nested(o, "spec", "template", "metadata", "labels"))
		if selOK && len(errs) == 0 {
			s, err := metav1.LabelSelectorAsSelector(sel)
			if err == nil && !s.Matches(labels.Set(tmplLabels)) {
				errs = append(errs, field.Invalid(tp.Child("metadata", "labels"), tmplLabels, "`selector` does not match template `labels`"))
			}
		}
		errs = append(errs, metav1validation.ValidateLabels(tmplLabels, tp.Child("metadata", "labels"))...)
		spec, _ := api.Nested(o, "spec", "template", "spec").(map[string]any)
		errs = append(errs, validatePodSpec(spec, tp.Child("spec"))...)
		if rp, _ := spec["restartPolicy"].(string); rp != "" && rp != "Always" {
			errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, []string{"Always"}))
		}
		if deployment {
			errs = append(errs, validateStrategy(o, sp.Child("strategy"))...)
		}
		return errs
	}
}

func validateStrategy(o api.Object, p *field.Path) field.ErrorList {
	t := api.NestedString(o, "spec", "strategy", "type")
	ru := api.Nested(o, "spec", "strategy", "rollingUpdate")
	if t == "Recreate" && ru != nil {
		return field.ErrorList{field.Forbidden(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
	}
	return nil
}

// selector decodes spec.selector; ok is false when it is not a valid LabelSelector.
func selector(o api.Object) (*metav1.LabelSelector, bool) {
	raw := api.Nested(o, "spec", "selector")
	if raw == nil {
		return nil, false
	}
	var sel metav1.LabelSelector
	if err := remarshal(raw, &sel); err != nil {
		return nil, false
	}
	return &sel, true
}

// validateSelectorUpdate: spec.selector of a Deployment or ReplicaSet cannot change.
func validateSelectorUpdate(o, old api.Object) field.ErrorList {
	cur, prev := api.Nested(o, "spec", "selector"), api.Nested(old, "spec", "selector")
	if !reflect.DeepEqual(cur, prev) {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), labelSelectorString(o), "field is immutable")}
	}
	return nil
}

func labelSelectorString(o api.Object) string {
	sel, ok := selector(o)
	if !ok {
		return fmt.Sprint(api.Nested(o, "spec", "selector"))
	}
	return metav1.FormatLabelSelector(sel)
}
