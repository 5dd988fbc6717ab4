// Package controllers is the controller-manager: it runs the enabled
// controllers (one package each below this one) on shared informers, with
// one event recorder per controller, under one leader election so that only
// one replica acts at a time. Config is the only input; Run blocks until
// ctx ends and all its goroutines have returned.
package controllers
