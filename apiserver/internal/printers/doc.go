// Package printers renders Capstan objects as the server-side table columns and
// cells kube-apiserver returns for "kubectl get" (meta.k8s.io/v1 Table), ported
// from kubernetes pkg/printers/internalversion for the kinds Capstan serves.
//
// Columns and Row agree for every kind: Row returns exactly one cell per column,
// in column order, including the wide (Priority 1) columns, because the server
// always sends every column and kubectl hides the wide ones unless -o wide.
// Column names use kube-apiserver's spelling ("Name", "Up-to-date"); kubectl
// upper-cases them when printing. Integer cells are int64, all others strings.
// Where an object lacks a field that kube-apiserver would have defaulted on
// create (spec.replicas, service type and port protocol, secret type), the
// default is shown, so cells match what a real cluster prints.
//
// Kinds without a dedicated printer get Name and Age, as for a custom resource.
// The package holds no mutable state and is safe for concurrent use; it never
// mutates the objects it is given.
package printers
