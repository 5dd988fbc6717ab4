package apierrors

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Reasons, as Kubernetes spells them.
const (
	ReasonNotFound           = "NotFound"
	ReasonAlreadyExists      = "AlreadyExists"
	ReasonConflict           = "Conflict"
	ReasonInvalid            = "Invalid"
	ReasonBadRequest         = "BadRequest"
	ReasonExpired            = "Expired"
	ReasonGone               = "Gone"
	ReasonUnauthorized       = "Unauthorized"
	ReasonForbidden          = "Forbidden"
	ReasonMethodNotAllowed   = "MethodNotAllowed"
	ReasonNotAcceptable      = "NotAcceptable"
	ReasonUnsupportedMedia   = "UnsupportedMediaType"
	ReasonRequestEntityLarge = "RequestEntityTooLarge"
	ReasonTooManyRequests    = "TooManyRequests"
	ReasonInternalError      = "InternalError"
	ReasonServiceUnavailable = "ServiceUnavailable"
	ReasonTimeout            = "Timeout"
)

// StatusError is an error reported to clients as a Status.
type StatusError struct {
	Status api.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

// New builds a failure Status.
func New(code int, reason, msg string, details *api.StatusDetails) *StatusError {
	return &StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   api.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Details:  details,
		Code:     int32(code),
	}}
}

// Resource names what an error is about: group and plural resource name.
type Resource struct{ Group, Resource string }

func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// NewNotFound is 404: `pods "x" not found`.
func NewNotFound(r Resource, name string) *StatusError {
	return New(http.StatusNotFound, ReasonNotFound, fmt.Sprintf("%s %q not found", r, name),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// NewAlreadyExists is 409 AlreadyExists.
func NewAlreadyExists(r Resource, name string) *StatusError {
	return New(http.StatusConflict, ReasonAlreadyExists, fmt.Sprintf("%s %q already exists", r, name),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// NewConflict is 409 Conflict.
func NewConflict(r Resource, name string, err error) *StatusError {
	return New(http.StatusConflict, ReasonConflict, fmt.Sprintf("Operation cannot be fulfilled on %s %q: %v", r, name, err),
		&api.StatusDetails{Name: name, Group: r.Group, Kind: r.Resource})
}

// FieldError is one problem with one field. Message is the problem without
// the field ("Required value"), as a Status cause carries it; the Status
// message joins "field: message" for every error, as Kubernetes does.
type FieldError struct {
	Field, Reason, Message string
}

// NewInvalid is 422 Invalid with one cause per field error.
func NewInvalid(kind, group, name string, errs []FieldError) *StatusError {
	causes := make([]api.StatusCause, len(errs))
	msgs := make([]string, len(errs))
	for i, e := range errs {
		causes[i] = api.StatusCause{Type: e.Reason, Message: e.Message, Field: e.Field}
		msgs[i] = e.Message
		if e.Field != "" {
			msgs[i] = e.Field + ": " + e.Message
		}
	}
	msg := fmt.Sprintf("%s %q is invalid: %s", kind, name, strings.Join(msgs, ", "))
	if len(msgs) > 1 {
		msg = fmt.Sprintf("%s %q is invalid: [%s]", kind, name, strings.Join(msgs, ", "))
	}
	return New(http.StatusUnprocessableEntity, ReasonInvalid, msg, &api.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// NewBadRequest is 400.
func NewBadRequest(msg string) *StatusError {
	return New(http.StatusBadRequest, ReasonBadRequest, msg, nil)
}

// NewResourceExpired is 410 Expired: the client must re-list.
func NewResourceExpired(msg string) *StatusError {
	return New(http.StatusGone, ReasonExpired, msg, nil)
}

// NewUnauthorized is 401.
func NewUnauthorized(msg string) *StatusError {
	if msg == "" {
		msg = "Unauthorized"
	}
	return New(http.StatusUnauthorized, ReasonUnauthorized, msg, nil)
}

// NewForbidden is 403.
func NewForbidden(msg string) *StatusError {
	return New(http.StatusForbidden, ReasonForbidden, msg, nil)
}

// NewMethodNotSupported is 405.
func NewMethodNotSupported(r Resource, method string) *StatusError {
	return New(http.StatusMethodNotAllowed, ReasonMethodNotAllowed, fmt.Sprintf("%s is not supported on resources of kind %q", method, r.String()),
		&api.StatusDetails{Group: r.Group, Kind: r.Resource})
}

// NewUnsupportedMediaType is 415.
func NewUnsupportedMediaType(contentType string) *StatusError {
	return New(http.StatusUnsupportedMediaType, ReasonUnsupportedMedia, fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json; got %q", contentType), nil)
}

// NewNotAcceptable is 406.
func NewNotAcceptable(msg string) *StatusError {
	return New(http.StatusNotAcceptable, ReasonNotAcceptable, msg, nil)
}

// NewRequestEntityTooLarge is 413.
func NewRequestEntityTooLarge(msg string) *StatusError {
	return New(http.StatusRequestEntityTooLarge, ReasonRequestEntityLarge, "Request entity too large: "+msg, nil)
}

// NewTooManyRequests is 429 with a retry hint.
func NewTooManyRequests(msg string, retryAfterSeconds int) *StatusError {
	return New(http.StatusTooManyRequests, ReasonTooManyRequests, msg, &api.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewInternalError is 500.
func NewInternalError(err error) *StatusError {
	return New(http.StatusInternalServerError, ReasonInternalError, fmt.Sprintf("Internal error occurred: %v", err), nil)
}

// NewServiceUnavailable is 503.
func NewServiceUnavailable(msg string) *StatusError {
	return New(http.StatusServiceUnavailable, ReasonServiceUnavailable, msg, nil)
}

// NewTimeout is 504.
func NewTimeout(msg string) *StatusError {
	return New(http.StatusGatewayTimeout, ReasonTimeout, msg, nil)
}

// Code returns the HTTP code of a StatusError in err's chain, or 0.
func Code(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return int(se.Status.Code)
	}
	return 0
}

// ReasonOf returns the reason of a StatusError in err's chain, or "".
func ReasonOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Reason
	}
	return ""
}

// IsNotFound reports a 404.
func IsNotFound(err error) bool { return Code(err) == http.StatusNotFound }

// IsAlreadyExists reports a 409 AlreadyExists.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == ReasonAlreadyExists }

// IsConflict reports a 409 Conflict.
func IsConflict(err error) bool { return ReasonOf(err) == ReasonConflict }

// IsGone reports a 410, Expired or Gone.
func IsGone(err error) bool { return Code(err) == http.StatusGone }
