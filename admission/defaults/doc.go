// Package defaults is the mutating admission plugin that fills in the fields
// Kubernetes defaults for the built-in kinds (SetDefaults_* in k8s.io/kubernetes).
// Numbers are set as json.Number, the form decoded objects hold, so a write that
// omits a defaulted field is equal to the stored object and changes nothing.
// It keeps no state and is safe for concurrent use.
package defaults
