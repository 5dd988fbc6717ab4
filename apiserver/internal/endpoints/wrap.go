package endpoints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
	"github.com/capstan-io/capstan/storage"
)

// HandlerFunc is a handler that returns its result instead of writing it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) (any, error)

// response lets a handler choose the status code of a successful result.
type response struct {
	code int
	body any
}

// streamed marks a response the handler already wrote (watches).
type streamed struct{}

// typedJSON is a JSON body with its own media type (such as aggregated discovery).
type typedJSON struct {
	contentType string
	body        any
}

// rawJSON is an already-encoded body.
type rawJSON []byte

// Wrap adapts h to http.Handler: it encodes the result as JSON or the error as a Status.
func Wrap(log *slog.Logger, h HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(w, r)
		if err != nil {
			WriteError(w, r, log, err)
			return
		}
		code := http.StatusOK
		if resp, ok := v.(response); ok {
			code, v = resp.code, resp.body
		}
		contentType := "application/json"
		if t, ok := v.(typedJSON); ok {
			contentType, v = t.contentType, t.body
		}
		switch b := v.(type) {
		case streamed:
			return
		case rawJSON:
			writeJSON(w, code, contentType, b)
		default:
			body, err := json.Marshal(v)
			if err != nil {
				WriteError(w, r, log, fmt.Errorf("encoding response: %w", err))
				return
			}
			writeJSON(w, code, contentType, body)
		}
	})
}

func writeJSON(w http.ResponseWriter, code int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(code)
	w.Write(body)
	w.Write([]byte("\n"))
}

// WriteError writes err as a Status, logging 4xx at Debug and 5xx at Error.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	se := ToStatus(err)
	code := int(se.Status.Code)
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		log.DebugContext(r.Context(), "client went away", "err", err)
	} else if code >= 500 {
		log.ErrorContext(r.Context(), "request failed", "code", code, "reason", se.Status.Reason, "err", err)
	} else {
		log.DebugContext(r.Context(), "request rejected", "code", code, "reason", se.Status.Reason, "message", se.Status.Message)
	}
	if se.Status.Details != nil && se.Status.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(se.Status.Details.RetryAfterSeconds)))
	}
	body, _ := json.Marshal(se.Status)
	writeJSON(w, code, "application/json", body)
}

// ToStatus maps any error onto a StatusError. Storage errors without request
// context become generic Statuses; handlers map the ones they know better first.
func ToStatus(err error) *apierrors.StatusError {
	var se *apierrors.StatusError
	switch {
	case errors.As(err, &se):
		return se
	case errors.Is(err, storage.ErrCompacted):
		return apierrors.NewResourceExpired("The resourceVersion for the provided watch is too old.")
	case errors.Is(err, storage.ErrFutureRev):
		return apierrors.NewTimeout("Too large resource version")
	case errors.Is(err, storage.ErrUnavailable):
		return apierrors.NewServiceUnavailable(fmt.Sprintf("etcd is unavailable: %v", err))
	case errors.Is(err, storage.ErrTimeout):
		return apierrors.NewTimeout(fmt.Sprintf("etcd did not answer in time; a write may or may not have been applied: %v", err))
	case errors.Is(err, context.DeadlineExceeded):
		return apierrors.NewTimeout("request did not complete within the allowed duration")
	}
	return apierrors.NewInternalError(err)
}

// storageError maps a storage error about one object of r onto its Status.
func storageError(err error, r *api.Resource, name string) error {
	gr := apierrors.Resource{Group: r.Group, Resource: r.Name}
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, storage.ErrExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, storage.ErrConflict):
		return apierrors.NewConflict(gr, name, errors.New(errModified))
	}
	return err
}

const errModified = "the object has been modified; please apply your changes to the latest version and try again"
