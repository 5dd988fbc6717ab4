// Package apierrors defines StatusError, an error that carries a Kubernetes
// Status, with constructors for every code the hub answers and predicates to
// test for them. Clients decode Status bodies into the same type.
package apierrors
