// Package authz decides whether a user may do what a request asks. RBAC
// answers from an in-memory copy of the rbac.authorization.k8s.io objects,
// which the server keeps current from its watches (Put, Delete, Replace);
// NodeRestriction confines nodes to their own objects using an in-memory pod
// graph. Authorizers return decisions and never write HTTP responses. All
// types here are safe for concurrent use.
package authz
