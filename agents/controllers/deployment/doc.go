// Package deployment is the Deployment controller. A Deployment owns one
// ReplicaSet per pod template, named <deployment>-<pod-template-hash>; the
// one matching the current template is the new ReplicaSet and the others are
// old. It rolls from old to new with RollingUpdate (never more than
// replicas+maxSurge pods asked for, never fewer than replicas-maxUnavailable
// available) or Recreate (old scaled to zero and gone before new is scaled
// up), numbers revisions in the deployment.kubernetes.io/revision annotation
// (so kubectl rollout history and undo work), keeps revisionHistoryLimit old
// ReplicaSets, honours spec.paused, and reports status, including the
// Available and Progressing conditions and ProgressDeadlineExceeded.
//
// The planning functions (Rolling, Recreate, Hash) are pure; Reconcile is
// safe for concurrent use on distinct keys.
package deployment
