// Package rules is the validating admission plugin for what a JSON Schema
// cannot say about the built-in kinds: names per kind, required lists,
// selectors that must match their template, quantities that must parse,
// fields that cannot change on update, and CustomResourceDefinitions whose
// names another CRD or a built-in resource of their group holds (read
// through a CRDLister). Messages and reasons follow
// k8s.io/kubernetes/pkg/apis/*/validation. It keeps no state and is safe for
// concurrent use.
package rules
