// Package api holds Capstan's wire types: generic JSON objects with Kubernetes
// metadata, lists, watch events, Status, Table and discovery documents, plus the
// registry of resource kinds the hub serves. It is the project's leaf package and
// imports nothing of the project. Objects are plain maps and are not safe for
// concurrent mutation; the Registry is safe for concurrent use.
package api
