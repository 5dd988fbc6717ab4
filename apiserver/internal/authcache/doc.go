// Package authcache keeps the in-memory state authentication and
// authorization decide from: the RBAC objects, the pod graph of the node
// authorizer, and the uids of service accounts and pods that bound tokens
// name. Each is a broadcast.Sink fed by a broadcast.Follower, so a
// request never costs a storage read and a change is seen within
// milliseconds. Everything here is safe for concurrent use.
package authcache
