// Package filters holds the hub's HTTP middleware: panic recovery, request ids
// and request-scoped loggers, access logs and metrics, authentication,
// auditing, authorization, and in-flight limits. Each is a
// func(http.Handler) http.Handler.
package filters
