// Package openapi publishes the hub's OpenAPI v3 documents: a root at
// /openapi/v3 listing one document per group version, each describing the
// paths and operations of that group version's resources with the Kubernetes
// extensions (x-kubernetes-group-version-kind, x-kubernetes-action) that
// kubectl reads. Documents are built from the resource registry on request
// and are safe for concurrent use. Component schemas come from the JSON
// Schemas in apiserver/api/schemas, the ones admission validates with; the same
// definitions are served as Swagger 2.0 at /openapi/v2 (JSON or protobuf).
package openapi
