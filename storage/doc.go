// Package storage defines the revisioned key-value contract the API server
// stores objects through. It deals only in keys, bytes and revisions: encoding,
// validation and API semantics live above it.
//
// Revisions are etcd revisions: every write moves the store's revision forward
// and the ModRevision of a key is the revision of its last write. Implementations
// must be safe for concurrent use.
package storage
