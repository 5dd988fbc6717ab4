package admission

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrorKind says how an admission failure reaches the client.
type ErrorKind int

const (
	// KindInvalid is a 422 Invalid with one cause per field error.
	KindInvalid ErrorKind = iota
	// KindBadRequest is a 400 BadRequest: the body could not be decoded into the kind.
	KindBadRequest
	// KindForbidden is a 403 Forbidden: a policy refused the request.
	KindForbidden
	// KindDenied is a refusal with its own code and reason (a webhook's).
	KindDenied
	// KindInternal is a 500: admission could not decide (a webhook failed).
	KindInternal
)

// Error is an admission failure.
type Error struct {
	Kind ErrorKind
	// Errs are the problems, for KindInvalid and KindBadRequest.
	Errs field.ErrorList
	// Message replaces the default message when set.
	Message string
	// Code and Reason are a KindDenied error's HTTP status and Status reason.
	Code   int
	Reason string
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Errs.ToAggregate().Error()
}

// Invalid returns a 422 error for errs, or nil when there are none.
func Invalid(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &Error{Kind: KindInvalid, Errs: errs}
}

// BadRequest returns a 400 error with msg.
func BadRequest(msg string, errs field.ErrorList) error {
	return &Error{Kind: KindBadRequest, Message: msg, Errs: errs}
}

// Forbidden returns a 403 error with msg.
func Forbidden(msg string) error { return &Error{Kind: KindForbidden, Message: msg} }

// Denied returns a refusal with its own code and reason.
func Denied(code int, reason, msg string) error {
	return &Error{Kind: KindDenied, Code: code, Reason: reason, Message: msg}
}

// Internal returns a 500 error with msg.
func Internal(msg string) error { return &Error{Kind: KindInternal, Message: msg} }

// AsError reports whether err is an admission *Error.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// JoinMessages joins messages as Kubernetes joins strict decoding errors.
func JoinMessages(msgs []string) string { return strings.Join(msgs, ", ") }
