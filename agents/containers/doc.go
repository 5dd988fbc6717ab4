// Package containers runs a pod's containers for the node agent. Runtime is the
// interface; Process runs each container as a real local process, and Fake (for
// scale tests with many simulated nodes) only pretends to.
//
// A Process container is started through a small shim (`capstan container-shim`,
// in its own session) that starts the command in its own process group, records
// its pid, waits for it and records how it ended. The shim, not the agent, is
// the container's parent, so containers keep running and their exit codes are
// still known when the node agent restarts or the control plane is down. All
// state lives in files under one directory per container, so a restarted agent
// adopts what it started. A container with Spec.Limits runs in its own cgroup
// (package cgroups), which its process joins, through the shim's --enter
// stage, before the command runs; the shim removes the group when the
// container ends and records whether the OOM killer ended it. Runtimes are
// safe for concurrent use.
package containers
