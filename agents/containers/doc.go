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
// adopts what it started. Runtimes are safe for concurrent use.
package containers
