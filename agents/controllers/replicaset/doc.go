// Package replicaset is the ReplicaSet controller: it creates and deletes
// pods so that each ReplicaSet controls spec.replicas active pods, adopts
// matching orphans and releases pods it no longer selects, and writes the
// ReplicaSet's status through /status.
//
// Invariants: it never acts on a ReplicaSet while creations or deletions it
// asked for are still missing from its cache (Expectations), names pods
// itself so that a create whose answer was lost is retried without a
// duplicate, creates in slow-start batches (1, 2, 4, …) that stop at the
// first error, and deletes
// unscheduled, then not-ready, then newest pods first. Reconcile is safe for
// concurrent use on distinct keys.
package replicaset
