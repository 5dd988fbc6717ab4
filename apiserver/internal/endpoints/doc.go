// Package endpoints serves the Kubernetes REST verbs for every registered
// resource over storage: get, list, watch, create, update, patch, delete and
// deletecollection, plus the status, scale, binding and finalize subresources
// and discovery. Handlers return (any, error); wrap encodes the result or turns
// the error into a Status, the one place where storage errors become API errors.
package endpoints
