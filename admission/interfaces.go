package admission

import (
	"context"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Operation is what a request does to an object.
type Operation string

// Operations, as Kubernetes names them in AdmissionReview.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// FieldValidation is how unknown fields in a request body are treated.
type FieldValidation string

// The fieldValidation query parameter's values.
const (
	// Strict rejects unknown fields with 400 BadRequest.
	Strict FieldValidation = "Strict"
	// Warn prunes unknown fields and warns about each; it is the default.
	Warn FieldValidation = "Warn"
	// Ignore prunes unknown fields silently.
	Ignore FieldValidation = "Ignore"
)

// Attributes describe one write for the plugins.
type Attributes struct {
	Operation Operation
	// Resource is the resource written; Subresource is "" for the main resource.
	Resource    *api.Resource
	Subresource string
	Namespace   string
	Name        string
	// Object is the object to be stored; mutating plugins change it in place.
	// It is nil on Delete.
	Object api.Object
	// OldObject is the stored object on Update and Delete.
	OldObject api.Object
	// FieldValidation is how unknown fields are treated; "" means Warn.
	FieldValidation FieldValidation
	DryRun          bool

	warnings []string
}

// AddWarning records a warning for the client (an HTTP Warning header).
func (a *Attributes) AddWarning(msg string) { a.warnings = append(a.warnings, msg) }

// Warnings returns the warnings the plugins recorded.
func (a *Attributes) Warnings() []string { return a.warnings }

// Plugin is a named admission step.
type Plugin interface {
	Name() string
}

// Mutator changes an object before it is validated, for instance by defaulting.
type Mutator interface {
	Plugin
	Admit(ctx context.Context, a *Attributes) error
}

// Validator accepts or rejects an object without changing it.
type Validator interface {
	Plugin
	Validate(ctx context.Context, a *Attributes) error
}

// RequiresValid is implemented by validators that must only see objects the
// validators before them accepted (webhooks); the chain skips them otherwise.
type RequiresValid interface {
	RequiresValidObject() bool
}

// MutatorFunc adapts a function to Mutator.
type MutatorFunc struct {
	PluginName string
	Fn         func(ctx context.Context, a *Attributes) error
}

// Name returns the plugin's name.
func (f MutatorFunc) Name() string { return f.PluginName }

// Admit calls f.Fn.
func (f MutatorFunc) Admit(ctx context.Context, a *Attributes) error { return f.Fn(ctx, a) }

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc struct {
	PluginName string
	Fn         func(ctx context.Context, a *Attributes) error
}

// Name returns the plugin's name.
func (f ValidatorFunc) Name() string { return f.PluginName }

// Validate calls f.Fn.
func (f ValidatorFunc) Validate(ctx context.Context, a *Attributes) error { return f.Fn(ctx, a) }

var (
	_ Mutator   = MutatorFunc{}
	_ Validator = ValidatorFunc{}
)
