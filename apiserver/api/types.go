package api

import "encoding/json"

// TypeMeta is apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// ListMeta is a list's metadata.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// List is any <Kind>List. Items are pre-encoded objects.
type List struct {
	TypeMeta `json:",inline"`
	Metadata ListMeta          `json:"metadata"`
	Items    []json.RawMessage `json:"items"`
}

// Watch event types.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
	Error    = "ERROR"
)

// WatchEvent is one frame of a watch stream.
type WatchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// InitialEventsEndAnnotation marks the bookmark that ends a streaming list's initial events.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// Status is the Kubernetes Status object every error is reported as.
type Status struct {
	TypeMeta `json:",inline"`
	Metadata ListMeta       `json:"metadata"`
	Status   string         `json:"status,omitempty"`
	Message  string         `json:"message,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Details  *StatusDetails `json:"details,omitempty"`
	Code     int32          `json:"code,omitempty"`
}

// StatusDetails names the object a Status is about.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one problem with a request.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

// Status values.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Table is meta.k8s.io/v1 Table, what kubectl prints.
type Table struct {
	TypeMeta          `json:",inline"`
	Metadata          ListMeta                `json:"metadata"`
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	Rows              []TableRow              `json:"rows"`
}

// TableColumnDefinition describes one column.
type TableColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// TableRow is one object's cells.
type TableRow struct {
	Cells  []any           `json:"cells"`
	Object json.RawMessage `json:"object,omitempty"`
}

// Scale is autoscaling/v1 Scale.
type Scale struct {
	TypeMeta `json:",inline"`
	Metadata map[string]any `json:"metadata"`
	Spec     ScaleSpec      `json:"spec"`
	Status   ScaleStatus    `json:"status"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int64 `json:"replicas"`
}

// ScaleStatus is the observed replica count and selector.
type ScaleStatus struct {
	Replicas int64  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}
