// Package registry holds what differs between kinds: which fields are status,
// which field selectors a kind supports, what happens on create, which Go type
// describes its strategic-merge-patch keys. The generic request path in
// endpoints asks a Strategy and otherwise treats every object alike.
// Strategies are immutable and safe for concurrent use.
package registry
