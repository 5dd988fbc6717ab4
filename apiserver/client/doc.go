// Package client is Capstan's small Go client for the hub: typed-by-resource
// get, list, create, update, patch, delete and watch over HTTPS, decoding every
// error response into an *apierrors.StatusError. Agents and tests talk to the
// hub only through it. A Client is safe for concurrent use; a Watch is owned by
// one goroutine.
package client
