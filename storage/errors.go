package storage

import (
	"errors"
	"fmt"
)

// Sentinel conditions; match them with errors.Is.
var (
	ErrNotFound    = errors.New("storage: key not found")
	ErrExists      = errors.New("storage: key exists")
	ErrConflict    = errors.New("storage: revision conflict")
	ErrCompacted   = errors.New("storage: revision compacted")
	ErrFutureRev   = errors.New("storage: revision is in the future")
	ErrUnavailable = errors.New("storage: unavailable")
	// ErrTimeout: the request may or may not have been applied.
	ErrTimeout = errors.New("storage: request timed out")
)

// Error carries the key and revision an operation failed on. It unwraps to one of the sentinels.
type Error struct {
	Code error
	Key  string
	Rev  int64
	Err  error // the underlying cause, if any
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%v: key %q", e.Code, e.Key)
	if e.Rev != 0 {
		msg += fmt.Sprintf(" at revision %d", e.Rev)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the sentinel and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Code}
	}
	return []error{e.Code, e.Err}
}
