// Package dockerstack tests the docker-compose stack at the repository root
// (3 etcd members, 2 hub replicas, 2 schedulers, 2 controller-managers, 2
// process nodes) against the faults it must survive, by stopping, killing
// and disconnecting its containers. The tests run when Docker and Compose
// are present and skip, saying so, when they are not; the same scenarios run
// without Docker as processes on loopback in package e2e (stack_test.go).
package dockerstack
