package admission

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Chain runs mutating plugins, then validating plugins, each in order.
type Chain struct {
	mutators   []Mutator
	validators []Validator
}

// New returns a chain of plugins. Each must be a Mutator, a Validator or both;
// a plugin that is both mutates in the first phase and validates in the second.
func New(plugins ...Plugin) *Chain {
	c := &Chain{}
	for _, p := range plugins {
		m, isM := p.(Mutator)
		v, isV := p.(Validator)
		if !isM && !isV {
			panic(fmt.Sprintf("admission: plugin %s neither mutates nor validates", p.Name()))
		}
		if isM {
			c.mutators = append(c.mutators, m)
		}
		if isV {
			c.validators = append(c.validators, v)
		}
	}
	return c
}

// Admit runs the chain on a. A failing mutator stops it. Every validator runs,
// and their field errors (422 Invalid) are reported together, so a client
// sees all problems at once; any other validation failure stops the chain.
func (c *Chain) Admit(ctx context.Context, a *Attributes) error {
	if c == nil {
		return nil
	}
	for _, m := range c.mutators {
		if err := m.Admit(ctx, a); err != nil {
			return err
		}
	}
	var invalid field.ErrorList
	for _, v := range c.validators {
		if rv, ok := v.(RequiresValid); ok && rv.RequiresValidObject() && len(invalid) > 0 {
			continue // as in Kubernetes, validating webhooks see only valid objects
		}
		err := v.Validate(ctx, a)
		if err == nil {
			continue
		}
		if ae, ok := AsError(err); ok && ae.Kind == KindInvalid && ae.Message == "" {
			invalid = append(invalid, ae.Errs...)
			continue
		}
		return err
	}
	return Invalid(invalid)
}

// Names lists the plugins in the order they run, mutating phase first.
func (c *Chain) Names() []string {
	var out []string
	for _, m := range c.mutators {
		out = append(out, m.Name())
	}
	for _, v := range c.validators {
		out = append(out, v.Name())
	}
	return out
}
