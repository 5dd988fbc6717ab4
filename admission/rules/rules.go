package rules

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/apiserver/api"
)

// New returns the per-kind validation plugin. crds, if not nil, lists the
// stored CRDs, so a CRD whose names are taken is refused.
func New(crds CRDLister) admission.Validator {
	return admission.ValidatorFunc{PluginName: "KindRules", Fn: func(ctx context.Context, a *admission.Attributes) error {
		return validate(ctx, crds, a)
	}}
}

// kindRules validates one kind: create checks the new object, update also
// compares it with the old one.
type kindRules struct {
	create func(o api.Object) field.ErrorList
	update func(o, old api.Object) field.ErrorList
}

var byKind = map[string]kindRules{
	"v1/Pod":             {create: validatePod, update: validatePodUpdate},
	"v1/Service":         {create: validateService},
	"v1/ConfigMap":       {create: validateDataKeys, update: validateImmutableData},
	"v1/Secret":          {create: validateDataKeys, update: validateImmutableData},
	"apps/v1/Deployment": {create: validateWorkload(true), update: validateSelectorUpdate},
	"apps/v1/ReplicaSet": {create: validateWorkload(false), update: validateSelectorUpdate},
	"apiextensions.k8s.io/v1/CustomResourceDefinition": {create: validateCRD, update: validateCRDUpdate},
}

func validate(ctx context.Context, crds CRDLister, a *admission.Attributes) error {
	if a.Object == nil || a.Resource == nil {
		return nil
	}
	// Subresources change what their handler owns: status, a binding, a scale.
	if a.Subresource == "binding" {
		return nil
	}
	r, ok := byKind[a.Resource.GroupVersion()+"/"+a.Resource.Kind]
	if !ok {
		return nil
	}
	errs := r.create(a.Object)
	if a.Operation == admission.Update && a.OldObject != nil && r.update != nil && a.Subresource == "" {
		errs = append(errs, r.update(a.Object, a.OldObject)...)
	}
	if a.Resource.Group == "apiextensions.k8s.io" && a.Resource.Kind == "CustomResourceDefinition" {
		more, err := crdNameRules(ctx, crds, a)
		if err != nil {
			return err
		}
		errs = append(errs, more...)
	}
	return admission.Invalid(errs)
}
