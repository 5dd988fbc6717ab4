// Package openapi publishes the hub's OpenAPI v3 documents: a root at
// /openapi/v3 listing one document per group version, each describing the
// paths and operations of that group version's resources with the Kubernetes
// extensions (x-kubernetes-group-version-kind, x-kubernetes-action) that
// kubectl reads. Documents are built from the resource registry on request
// and are safe for concurrent use.
package openapi
