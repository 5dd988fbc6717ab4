// Package auth holds the vocabulary shared by authentication and
// authorization: who a request is from (User), what it asks to do
// (Attributes) and the answer (Decision). Its subpackages authn and authz
// return decisions; they never write HTTP responses and import nothing from
// the apiserver. All types are plain values, safe to share once built.
package auth
