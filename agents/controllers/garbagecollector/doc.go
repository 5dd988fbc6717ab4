// Package garbagecollector is the garbage collector: it deletes objects
// whose owners (metadata.ownerReferences) are all gone, and carries out the
// two deletion modes that keep an owner until its dependents are dealt with:
//
//   - Foreground (finalizer foregroundDeletion): the owner's dependents are
//     deleted and the finalizer is removed once no dependent with
//     blockOwnerDeletion is left.
//   - Orphan (finalizer orphan): the owner's references are removed from its
//     dependents, then the finalizer.
//
// Background deletion needs no finalizer: the owner is removed at once and
// its dependents follow as their owners are found missing. The collector is
// driven by the watches of every resource it covers (no polling); an owner
// not yet in its cache is looked up before anything is deleted. Reconcile
// is safe for concurrent use.
package garbagecollector
