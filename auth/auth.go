package auth

import (
	"context"
	"slices"
)

// Well-known users and groups, as Kubernetes names them.
const (
	GroupMasters         = "system:masters"
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	GroupNodes           = "system:nodes"
	GroupServiceAccounts = "system:serviceaccounts"
	UserAnonymous        = "system:anonymous"
	// ServiceAccountPrefix starts every service account's user name:
	// system:serviceaccount:<namespace>:<name>.
	ServiceAccountPrefix = "system:serviceaccount:"
	// NodePrefix starts every node's user name: system:node:<name>.
	NodePrefix = "system:node:"
)

// User is an authenticated identity.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// InGroup reports whether u is a member of g.
func (u User) InGroup(g string) bool { return slices.Contains(u.Groups, g) }

// Anonymous is the identity of a request without credentials.
func Anonymous() User {
	return User{Name: UserAnonymous, Groups: []string{GroupUnauthenticated}}
}

// Attributes is what a request asks to do, as RBAC sees it.
type Attributes struct {
	User User
	// Verb is get, list, watch, create, update, patch, delete, deletecollection,
	// or for non-resource requests the lower-case HTTP method (get, post, ...).
	Verb string
	// ResourceRequest is true for /api and /apis resource paths; false means Path applies.
	ResourceRequest                                              bool
	Namespace, APIGroup, APIVersion, Resource, Subresource, Name string
	// Path is the URL path of a non-resource request.
	Path string
}

// Decision is an authorizer's answer.
type Decision int

const (
	// NoOpinion lets the next authorizer decide; at the end of a chain it means deny.
	NoOpinion Decision = iota
	// Allow admits the request.
	Allow
	// Deny refuses the request and stops the chain.
	Deny
)

type userKey struct{}

// WithUser returns ctx carrying u.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user stored by WithUser.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}
