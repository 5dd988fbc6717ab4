package apiserver

import (
	"fmt"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/admission/plugins"
	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
)

// newAdmission compiles the built-in kinds' schemas once and builds the
// admission chain with every plugin not disabled. CRDs add their schemas to
// the returned set at run time.
func newAdmission(reg *api.Registry, hooks *webhookSource, crds *crdLister, disabled []string) (*admission.Chain, *schema.Set, error) {
	schemas, err := schema.NewBuiltin(reg.All())
	if err != nil {
		return nil, nil, fmt.Errorf("compiling built-in schemas: %w", err)
	}
	chain, err := plugins.New(plugins.Deps{Schemas: schemas, Webhooks: hooks, CRDs: crds}, disabled)
	if err != nil {
		return nil, nil, fmt.Errorf("--disable-admission-plugins: %w", err)
	}
	return chain, schemas, nil
}
