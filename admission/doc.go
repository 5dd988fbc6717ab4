// Package admission runs every object that is written through a fixed chain
// of plugins: first the mutating ones in order (defaulting), then the
// validating ones in order. A plugin is small and named; the list of plugins,
// and which of them are optional, lives in package admission/plugins.
//
// Plugins return their own errors: *Error carries field errors (422 Invalid)
// or a decode-level problem (400 BadRequest); the server maps them onto a
// Status once, at the HTTP edge. A Chain is immutable after New and safe for
// concurrent use; Attributes belong to one request.
//
// admission imports only the API types (apiserver/api) and k8s.io/apimachinery.
package admission
