// Package nodelifecycle is the node lifecycle controller. A node whose Lease
// in kube-node-lease has not been seen renewed for the grace period gets
// Ready=Unknown and the node.kubernetes.io/unreachable:NoExecute taint; pods
// bound to a tainted node are deleted once their toleration of that taint
// runs out (pods without one get the default eviction timeout), so their
// controllers recreate them elsewhere. When the Lease is renewed again the
// taint is removed; the node agent sets Ready itself.
//
// Renewals are timed by when this controller observed them, not by the
// Lease's renewTime, so clock skew between hosts does not matter; a fresh
// leader gives every node a full grace period. Reconcile is safe for
// concurrent use.
package nodelifecycle
