package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Object is any API object as decoded JSON. Numbers are json.Number, so integers
// survive a round trip exactly.
type Object map[string]any

// Decode parses one JSON object.
func Decode(b []byte) (Object, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var o Object
	if err := d.Decode(&o); err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("object is null")
	}
	if d.More() {
		return nil, fmt.Errorf("unexpected data after the object")
	}
	return o, nil
}

// DeepCopy returns a copy sharing nothing with o.
func (o Object) DeepCopy() Object {
	if o == nil {
		return nil
	}
	return deepCopy(map[string]any(o)).(map[string]any)
}

// DeepCopyValue copies a decoded JSON value.
func DeepCopyValue(v any) any { return deepCopy(v) }

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case Object:
		return deepCopy(map[string]any(t))
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = deepCopy(e)
		}
		return s
	default:
		return v
	}
}

// APIVersion returns the object's apiVersion.
func (o Object) APIVersion() string { s, _ := o["apiVersion"].(string); return s }

// Kind returns the object's kind.
func (o Object) Kind() string { s, _ := o["kind"].(string); return s }

// Meta returns the metadata map, creating it if missing.
func (o Object) Meta() map[string]any {
	m, ok := o["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		o["metadata"] = m
	}
	return m
}

func (o Object) metaString(k string) string {
	m, _ := o["metadata"].(map[string]any)
	s, _ := m[k].(string)
	return s
}

// Name returns metadata.name.
func (o Object) Name() string { return o.metaString("name") }

// Namespace returns metadata.namespace.
func (o Object) Namespace() string { return o.metaString("namespace") }

// UID returns metadata.uid.
func (o Object) UID() string { return o.metaString("uid") }

// ResourceVersion returns metadata.resourceVersion.
func (o Object) ResourceVersion() string { return o.metaString("resourceVersion") }

// DeletionTimestamp returns metadata.deletionTimestamp, or "".
func (o Object) DeletionTimestamp() string { return o.metaString("deletionTimestamp") }

// SetResourceVersion sets metadata.resourceVersion to rev.
func (o Object) SetResourceVersion(rev int64) {
	o.Meta()["resourceVersion"] = strconv.FormatInt(rev, 10)
}

// StringMap returns metadata.<field> (labels, annotations) as a map.
func (o Object) StringMap(field string) map[string]string {
	m, _ := o["metadata"].(map[string]any)
	src, _ := m[field].(map[string]any)
	out := make(map[string]string, len(src))
	for k, v := range src {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

// Labels returns metadata.labels.
func (o Object) Labels() map[string]string { return o.StringMap("labels") }

// Finalizers returns metadata.finalizers.
func (o Object) Finalizers() []string {
	m, _ := o["metadata"].(map[string]any)
	l, _ := m["finalizers"].([]any)
	out := make([]string, 0, len(l))
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// SetFinalizers replaces metadata.finalizers; an empty list removes the field.
func (o Object) SetFinalizers(f []string) {
	if len(f) == 0 {
		delete(o.Meta(), "finalizers")
		return
	}
	l := make([]any, len(f))
	for i, s := range f {
		l[i] = s
	}
	o.Meta()["finalizers"] = l
}

// Generation returns metadata.generation, or 0.
func (o Object) Generation() int64 {
	m, _ := o["metadata"].(map[string]any)
	return Int64(m["generation"])
}

// Int64 converts a decoded JSON number to int64; anything else is 0.
func Int64(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			f, _ := n.Float64()
			return int64(f)
		}
		return i
	case float64:
		return int64(n)
	case int64:
		return n
	case int:
		return int64(n)
	}
	return 0
}

// Nested walks fields from o and returns the value there, or nil.
func Nested(o map[string]any, fields ...string) any {
	var cur any = o
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[f]
	}
	return cur
}

// NestedString is Nested for strings.
func NestedString(o map[string]any, fields ...string) string {
	s, _ := Nested(o, fields...).(string)
	return s
}

// NestedSlice is Nested for lists.
func NestedSlice(o map[string]any, fields ...string) []any {
	s, _ := Nested(o, fields...).([]any)
	return s
}

// NestedMap is Nested for objects.
func NestedMap(o map[string]any, fields ...string) map[string]any {
	m, _ := Nested(o, fields...).(map[string]any)
	return m
}

// SetNested sets o.fields... = v, creating maps along the way.
func SetNested(o map[string]any, v any, fields ...string) {
	cur := o
	for _, f := range fields[:len(fields)-1] {
		next, ok := cur[f].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[f] = next
		}
		cur = next
	}
	cur[fields[len(fields)-1]] = v
}

// Int64String renders a decoded JSON number as decimal text ("0" when absent).
func Int64String(v any) string { return strconv.FormatInt(Int64(v), 10) }
