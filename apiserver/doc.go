// Package apiserver assembles Capstan's hub: it bootstraps TLS material,
// starts (or connects to) etcd, and serves the Kubernetes REST and watch API
// over it. A Server is built with New and runs with Run(ctx), which returns
// after every goroutine it started has ended.
package apiserver
