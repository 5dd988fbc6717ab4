// Package plugins lists every admission plugin in one place, in the order the
// chain runs them, and builds the chain from the enabled ones.
package plugins

import (
	"fmt"
	"slices"
	"strings"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/admission/defaults"
	"github.com/capstan-io/capstan/admission/rules"
	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/admission/webhook"
)

// Deps are what the plugins are built from.
type Deps struct {
	// Schemas are the compiled schemas of every kind (CRDs add theirs).
	Schemas *schema.Set
	// Webhooks are the configured admission webhooks; nil means none.
	Webhooks webhook.Source
	// CRDs lists the stored CustomResourceDefinitions for KindRules' name
	// conflict check; nil skips that check.
	CRDs rules.CRDLister
}

// spec is one plugin: its name, whether it can be turned off, and how to build it.
type spec struct {
	name     string
	optional bool
	build    func(d Deps) admission.Plugin
}

// all is every plugin in the order it runs (mutating ones are run before
// validating ones whatever their place here; within a phase this order holds).
var all = []spec{
	// SchemaDecode: wrong JSON types (400) and unknown fields (fieldValidation).
	{name: "SchemaDecode", build: func(d Deps) admission.Plugin { return d.Schemas.Decode() }},
	// Defaults: Kubernetes' defaults for the built-in kinds.
	{name: "Defaults", build: func(Deps) admission.Plugin { return defaults.New() }},
	// SchemaValidation: the kind's JSON Schema (enums, bounds, required).
	{name: "SchemaValidation", build: func(d Deps) admission.Plugin { return d.Schemas.Validate() }},
	// KindRules: per-kind rules beyond the schema (names, selectors, immutable fields, quantities).
	{name: "KindRules", optional: true, build: func(d Deps) admission.Plugin { return rules.New(d.CRDs) }},
	// Webhooks: Mutating- then ValidatingWebhookConfigurations (mutates after
	// Defaults, validates after KindRules).
	{name: "Webhooks", optional: true, build: func(d Deps) admission.Plugin { return webhook.New(d.Webhooks) }},
}

// Names lists every plugin, in order.
func Names() []string {
	out := make([]string, len(all))
	for i, p := range all {
		out[i] = p.name
	}
	return out
}

// Optional lists the plugins that can be disabled.
func Optional() []string {
	var out []string
	for _, p := range all {
		if p.optional {
			out = append(out, p.name)
		}
	}
	return out
}

// New builds the chain from every plugin not named in disabled, from deps.
// Naming an unknown or required plugin is an error; without a webhook source
// the Webhooks plugin is left out.
func New(deps Deps, disabled []string) (*admission.Chain, error) {
	for _, d := range disabled {
		i := slices.IndexFunc(all, func(p spec) bool { return p.name == d })
		if i < 0 {
			return nil, fmt.Errorf("admission plugin %q does not exist (plugins: %s)", d, strings.Join(Names(), ", "))
		}
		if !all[i].optional {
			return nil, fmt.Errorf("admission plugin %q cannot be disabled (optional: %s)", d, strings.Join(Optional(), ", "))
		}
	}
	var ps []admission.Plugin
	for _, p := range all {
		if p.name == "Webhooks" && deps.Webhooks == nil {
			continue
		}
		if !slices.Contains(disabled, p.name) {
			ps = append(ps, p.build(deps))
		}
	}
	return admission.New(ps...), nil
}
