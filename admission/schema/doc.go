// Package schema is the admission step driven by each kind's JSON Schema
// (apiserver/api/schemas for built-in kinds; CRDs add theirs at run time).
//
// It works in two places of the chain:
//   - Decode (mutating, runs first) does what Kubernetes' decoder does for a
//     built-in kind: a value of the wrong JSON type is a 400 BadRequest naming
//     the field, nulls are dropped, and unknown fields are rejected (Strict),
//     pruned with a warning (Warn, the default) or pruned silently (Ignore).
//   - Validate (validating) checks the defaulted object against the schema with
//     github.com/santhosh-tekuri/jsonschema/v5 and reports one field error per
//     problem (422 Invalid).
//
// Each schema is compiled once, when a Set is built or a kind is added.
// A Set is safe for concurrent use.
package schema
