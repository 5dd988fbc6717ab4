// Package etcd3 implements storage.Interface on an etcd v3 cluster through
// go.etcd.io/etcd/client/v3. Every write is a transaction with a precondition on
// the key's revision, so there are no lost updates. A Store is safe for
// concurrent use; it does not own the client it is given.
package etcd3
