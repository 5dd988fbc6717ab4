package printers

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/capstan-io/capstan/apiserver/api"
)

// parseTime reads an RFC 3339 timestamp (metav1.Time or MicroTime); false if
// it is missing or malformed.
func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// since is kube's translateTimestampSince: the human duration from ts to now,
// or "<unknown>" when there is no timestamp.
func since(ts string, now time.Time) string {
	t, ok := parseTime(ts)
	if !ok {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// age is since(metadata.creationTimestamp).
func age(o api.Object, now time.Time) string {
	return since(api.NestedString(o, "metadata", "creationTimestamp"), now)
}

// objects returns the elements of l that are JSON objects.
func objects(l []any) []map[string]any {
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// has reports whether o.fields... is present (JSON null counts as absent).
func has(o map[string]any, fields ...string) bool { return api.Nested(o, fields...) != nil }

// boolean is o.fields... as a bool, false when missing.
func boolean(o map[string]any, fields ...string) bool {
	b, _ := api.Nested(o, fields...).(bool)
	return b
}

// int64Or is o.fields... as an int64, or def when the field is missing; it
// stands in for kube-apiserver's defaulting of optional integers.
func int64Or(o map[string]any, def int64, fields ...string) int64 {
	v := api.Nested(o, fields...)
	if v == nil {
		return def
	}
	return api.Int64(v)
}

// stringOr is o.fields... as a string, or def when missing or empty.
func stringOr(o map[string]any, def string, fields ...string) string {
	if s := api.NestedString(o, fields...); s != "" {
		return s
	}
	return def
}

// orNone is s, or "<none>" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// stringMap is a decoded map[string]string, such as a label set.
func stringMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

// strs is a decoded []string.
func strs(l []any) []string {
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// containerCells is kube's layoutContainerCells: the template's container
// names and images, each joined with commas.
func containerCells(o api.Object) (names, images string) {
	var n, i []string
	for _, c := range objects(api.NestedSlice(o, "spec", "template", "spec", "containers")) {
		n = append(n, api.NestedString(c, "name"))
		i = append(i, api.NestedString(c, "image"))
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// labelSelector is metav1.LabelSelectorAsSelector(sel).String() for a decoded
// metav1.LabelSelector: "app=web,tier in (a,b)", "" for a nil or empty one.
func labelSelector(sel map[string]any) (string, error) {
	var reqs []labels.Requirement
	for k, v := range api.NestedMap(sel, "matchLabels") {
		s, _ := v.(string)
		r, err := labels.NewRequirement(k, selection.Equals, []string{s})
		if err != nil {
			return "", err
		}
		reqs = append(reqs, *r)
	}
	for _, e := range objects(api.NestedSlice(sel, "matchExpressions")) {
		var op selection.Operator
		switch o := api.NestedString(e, "operator"); o {
		case "In":
			op = selection.In
		case "NotIn":
			op = selection.NotIn
		case "Exists":
			op = selection.Exists
		case "DoesNotExist":
			op = selection.DoesNotExist
		default:
			return "", fmt.Errorf("%q is not a valid label selector operator", o)
		}
		r, err := labels.NewRequirement(api.NestedString(e, "key"), op, strs(api.NestedSlice(e, "values")))
		if err != nil {
			return "", err
		}
		reqs = append(reqs, *r)
	}
	return labels.NewSelector().Add(reqs...).String(), nil
}

// formatLabelSelector is metav1.FormatLabelSelector: "<none>" when empty and
// "<error>" when invalid.
func formatLabelSelector(sel map[string]any) string {
	s, err := labelSelector(sel)
	switch {
	case err != nil:
		return "<error>"
	case s == "":
		return "<none>"
	}
	return s
}
