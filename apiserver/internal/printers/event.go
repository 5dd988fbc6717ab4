package printers

import (
	"strings"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

// eventColumns is kube's order, wide columns interleaved: kubectl shows
// Last Seen, Type, Reason, Object, Message and adds the rest with -o wide.
var eventColumns = []api.TableColumnDefinition{
	column("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
	column("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
	column("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
	column("Object", "string", "The object that this event is about."),
	wide("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object."),
	wide("Source", "string", "The component reporting this event. Should be a short machine understandable string."),
	column("Message", "string", "A human-readable description of the status of this operation."),
	wide("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
	wide("Count", "string", "The number of times this event has occurred."),
	{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: descName},
}

// eventRow is kube's printEvent, covering both core/v1 events (first and last
// timestamps, count) and events.k8s.io-style ones (eventTime, series).
func eventRow(o api.Object, now time.Time) []any {
	firstSeen := since(api.NestedString(o, "firstTimestamp"), now)
	if api.NestedString(o, "firstTimestamp") == "" {
		firstSeen = since(api.NestedString(o, "eventTime"), now)
	}
	lastSeen := since(api.NestedString(o, "lastTimestamp"), now)
	if api.NestedString(o, "lastTimestamp") == "" {
		lastSeen = firstSeen
	}

	count := api.Int64(o["count"])
	if series := api.NestedMap(o, "series"); series != nil {
		lastSeen = since(api.NestedString(series, "lastObservedTime"), now)
		count = api.Int64(series["count"])
	} else if count == 0 {
		// Singleton events don't have a count set in the new API.
		count = 1
	}

	target := strings.ToLower(api.NestedString(o, "involvedObject", "kind"))
	if name := api.NestedString(o, "involvedObject", "name"); name != "" {
		target += "/" + name
	}

	return []any{
		lastSeen,
		api.NestedString(o, "type"),
		api.NestedString(o, "reason"),
		target,
		api.NestedString(o, "involvedObject", "fieldPath"),
		eventSource(o),
		strings.TrimSpace(api.NestedString(o, "message")),
		firstSeen,
		count,
		o.Name(),
	}
}

// eventSource is "component, host", falling back to reportingController and
// reportingInstance, and leaving out an empty host.
func eventSource(o api.Object) string {
	component := stringOr(o, api.NestedString(o, "reportingController"), "source", "component")
	instance := stringOr(o, api.NestedString(o, "reportingInstance"), "source", "host")
	if instance == "" {
		return component
	}
	return component + ", " + instance
}
