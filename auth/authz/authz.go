package authz

import (
	"context"
	"fmt"

	"github.com/capstan-io/capstan/auth"
)

// Authorizer decides on one request. reason explains a decision for logs and SubjectAccessReview.
type Authorizer interface {
	Authorize(ctx context.Context, a auth.Attributes) (d auth.Decision, reason string, err error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a auth.Attributes) (auth.Decision, string, error)

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, a auth.Attributes) (auth.Decision, string, error) {
	return f(ctx, a)
}

// Chain asks each authorizer in turn; the first Allow or Deny decides.
type Chain []Authorizer

var _ Authorizer = Chain(nil)

// Authorize runs the chain; NoOpinion from all means the request is not allowed.
func (c Chain) Authorize(ctx context.Context, a auth.Attributes) (auth.Decision, string, error) {
	for _, z := range c {
		d, reason, err := z.Authorize(ctx, a)
		if err != nil {
			return auth.Deny, "", err
		}
		if d != auth.NoOpinion {
			return d, reason, nil
		}
	}
	return auth.NoOpinion, "", nil
}

// Masters allows everything to members of system:masters.
var Masters = AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
	if a.User.InGroup(auth.GroupMasters) {
		return auth.Allow, "", nil
	}
	return auth.NoOpinion, "", nil
})

// ForbiddenMessage is the Kubernetes wording of a refusal, such as
// `pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "demo"`.
func ForbiddenMessage(a auth.Attributes, reason string) string {
	var msg string
	if !a.ResourceRequest {
		msg = fmt.Sprintf("forbidden: User %q cannot %s path %q", a.User.Name, a.Verb, a.Path)
	} else {
		res := a.Resource
		if a.Subresource != "" {
			res += "/" + a.Subresource
		}
		gr := a.Resource
		if a.APIGroup != "" {
			gr += "." + a.APIGroup
		}
		if a.Name != "" {
			gr += " \"" + a.Name + "\""
		}
		msg = fmt.Sprintf("%s is forbidden: User %q cannot %s resource %q in API group %q", gr, a.User.Name, a.Verb, res, a.APIGroup)
		if a.Namespace != "" {
			msg += fmt.Sprintf(" in the namespace %q", a.Namespace)
		} else {
			msg += " at the cluster scope"
		}
	}
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}
