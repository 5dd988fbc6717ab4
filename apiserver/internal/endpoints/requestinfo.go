package endpoints

import (
	"net/http"
	"strings"

	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// RequestInfo is what a resource path and method say about a request.
type RequestInfo struct {
	Group, Version              string
	Namespace                   string
	Resource, Name, Subresource string
	// Verb is get, list, watch, create, update, patch, delete or deletecollection.
	Verb string
}

// namespaceSubresources are the subresources of a Namespace itself, which must not be
// read as /namespaces/{namespace}/{resource}.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// ParseRequestInfo reads a /api/v1/... or /apis/{group}/{version}/... path.
func ParseRequestInfo(r *http.Request) (*RequestInfo, error) {
	parts := splitPath(r.URL.Path)
	info := &RequestInfo{}
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		info.Version, parts = parts[1], parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		info.Group, info.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return nil, notFoundPath()
	}
	watchPath := false
	if len(parts) > 0 && parts[0] == "watch" { // the deprecated /watch/ prefix
		watchPath, parts = true, parts[1:]
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		} else {
			info.Namespace = ""
			if len(parts) > 2 {
				// /namespaces/{name}/status: the namespace object itself.
				info.Resource, info.Name, info.Subresource = "namespaces", parts[1], parts[2]
				parts = nil
			}
		}
	}
	if parts != nil {
		if len(parts) == 0 || len(parts) > 3 {
			return nil, notFoundPath()
		}
		info.Resource = parts[0]
		if len(parts) > 1 {
			info.Name = parts[1]
		}
		if len(parts) > 2 {
			info.Subresource = parts[2]
		}
	}
	if info.Resource == "namespaces" && info.Namespace != "" && info.Name == "" {
		// /namespaces/{name} is a get of the namespace, not a namespaced list.
		info.Name, info.Namespace = info.Namespace, ""
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case info.Name != "" && !watchPath:
			info.Verb = "get"
		case watchPath || isWatch(q.Get("watch"), q.Has("watch")):
			info.Verb = "watch"
		default:
			info.Verb = "list"
		}
	case http.MethodPost:
		info.Verb = "create"
	case http.MethodPut:
		info.Verb = "update"
	case http.MethodPatch:
		info.Verb = "patch"
	case http.MethodDelete:
		info.Verb = "delete"
		if info.Name == "" {
			info.Verb = "deletecollection"
		}
	default:
		return nil, apierrors.New(http.StatusMethodNotAllowed, apierrors.ReasonMethodNotAllowed,
			"the server does not allow this method on the requested resource", nil)
	}
	return info, nil
}

// isWatch accepts ?watch=1, ?watch=true and a bare ?watch.
func isWatch(v string, present bool) bool {
	if !present {
		return false
	}
	switch strings.ToLower(v) {
	case "", "1", "true":
		return true
	}
	return false
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func notFoundPath() error {
	return apierrors.New(http.StatusNotFound, apierrors.ReasonNotFound, "the server could not find the requested resource", nil)
}
