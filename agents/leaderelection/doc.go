// Package leaderelection lets one of several replicas of an agent act at a
// time, using a coordination.k8s.io/v1 Lease like client-go's leader election.
//
// A candidate takes the Lease when it is free, released (empty holder), or
// when it has seen no change to it for LeaseDuration by its own clock (so
// clocks need not agree). The leader renews every RetryPeriod; if it cannot
// renew for RenewDeadline it stops leading, which must be shorter than
// LeaseDuration so it stops before anyone else may start. Writes carry the
// Lease's resourceVersion, so two candidates never both win. A leader that
// exits cleanly with ReleaseOnCancel clears the holder so a standby takes over
// at its next retry. An Elector is used by one Run at a time.
package leaderelection
