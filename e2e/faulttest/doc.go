// Package faulttest holds the fault scenarios of the distributed stack that
// run both as processes on loopback (package e2e) and as containers of the
// docker-compose stack (package dockerstack): a hub replica stopped during
// writes and a watch, every replica killed during concurrent creates, and the
// small helpers they share. Only tests import it.
package faulttest
