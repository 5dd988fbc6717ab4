// Package authapi serves the authentication and authorization APIs that are
// not stored objects: TokenRequest (serviceaccounts/<name>/token),
// TokenReview, SelfSubjectReview, SubjectAccessReview,
// SelfSubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectRulesReview. Handlers return (any, error) for endpoints.Wrap.
// A Handler is safe for concurrent use.
package authapi
