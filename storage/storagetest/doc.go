// Package storagetest starts a real embedded etcd per test and checks any
// storage.Interface against the storage contract.
package storagetest
