package endpoints

import (
	"encoding/json"
	"maps"
	"slices"
	"unicode/utf8"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// createFields encodes the FieldsV1 of an object all of whose fields are
// new: what structured-merge-diff finds added when it compares the object
// with an empty one, less the fields Kubernetes' field manager never
// records (apiVersion, kind, and metadata's unrecordedMeta), read straight off the
// decoded object (no unstructured copy, typed value, path sets or their
// encoding). Every node of the object is a member; a container with members
// below it is written {".":{},...}, a leaf {}. s and root are the kind's
// schema and type. ok is false for anything it does not model the way
// structured-merge-diff does (a value of the wrong type, a field the schema
// does not have, a list neither atomic nor associative, a list element
// without keys), which the caller leaves to structured-merge-diff.
// TestTrackCreateMatchesFieldManager holds the two to the same answer.
func createFields(s *schema.Schema, root schema.TypeRef, obj map[string]any) (fields []byte, ok bool) {
	w := fieldsWriter{s: s, buf: make([]byte, 0, 256)}
	atom, found := s.Resolve(root)
	if !found || atom.Map == nil {
		return nil, false
	}
	w.buf = append(w.buf, '{')
	n := 0
	for _, k := range sortedKeys(obj) {
		if k == "apiVersion" || k == "kind" {
			continue
		}
		tr, found := fieldType(atom.Map, k)
		if !found {
			return nil, false
		}
		if k == "metadata" { // not a member itself; some of its fields are left out
			meta, isMap := obj[k].(map[string]any)
			matom, found := s.Resolve(tr)
			if !isMap || !found || matom.Map == nil {
				return nil, false
			}
			mark := len(w.buf)
			w.member(n, "f:metadata")
			w.buf = append(w.buf, '{')
			m := 0
			for _, mk := range sortedKeys(meta) {
				if unrecordedMeta[mk] {
					continue
				}
				mtr, found := fieldType(matom.Map, mk)
				if !found || !w.node(m, "f:"+mk, meta[mk], mtr) {
					return nil, false
				}
				m++
			}
			if m == 0 {
				w.buf = w.buf[:mark]
				continue
			}
			w.buf = append(w.buf, '}')
			n++
			continue
		}
		if !w.node(n, "f:"+k, obj[k], tr) {
			return nil, false
		}
		n++
	}
	if n == 0 {
		return nil, true
	}
	return append(w.buf, '}'), true
}

// unrecordedMeta are the fields of metadata no manager is recorded for, as
// Kubernetes' field manager strips them (with metadata itself, apiVersion and kind).
var unrecordedMeta = map[string]bool{
	"name": true, "namespace": true, "creationTimestamp": true, "selfLink": true, "uid": true,
	"clusterName": true, "generation": true, "managedFields": true, "resourceVersion": true,
}

type fieldsWriter struct {
	s   *schema.Schema
	buf []byte
}

// member writes the key of the i-th member of an object.
func (w *fieldsWriter) member(i int, key string) {
	if i > 0 {
		w.buf = append(w.buf, ',')
	}
	w.buf = appendJSONString(w.buf, key)
	w.buf = append(w.buf, ':')
}

// node writes member i, key, for value v of type tr and everything below it.
func (w *fieldsWriter) node(i int, key string, v any, tr schema.TypeRef) bool {
	w.member(i, key)
	atom, found := w.s.Resolve(tr)
	if !found {
		return false
	}
	switch v := v.(type) {
	case nil:
		if atom.Map == nil && atom.List == nil && atom.Scalar == nil {
			return false
		}
	case map[string]any:
		if atom.Map == nil {
			return false
		}
		if atom.Map.ElementRelationship == schema.Atomic || len(v) == 0 {
			break
		}
		w.buf = append(w.buf, `{".":{}`...)
		for _, k := range sortedKeys(v) {
			ctr, found := fieldType(atom.Map, k)
			if !found || !w.node(1, "f:"+k, v[k], ctr) {
				return false
			}
		}
		w.buf = append(w.buf, '}')
		return true
	case []any:
		if atom.List == nil {
			return false
		}
		if atom.List.ElementRelationship == schema.Atomic || len(v) == 0 {
			break
		}
		return w.list(atom.List, v)
	default:
		if atom.Scalar == nil || !scalarFits(*atom.Scalar, v) {
			return false
		}
	}
	w.buf = append(w.buf, '{', '}')
	return true
}

// list writes the elements of an associative list by their keys or values;
// an element whose key or value appears twice is a member with nothing below.
func (w *fieldsWriter) list(l *schema.List, items []any) bool {
	if l.ElementRelationship != schema.Associative {
		return false
	}
	type elem struct {
		key string
		v   any
		dup bool
	}
	elems := make([]elem, 0, len(items))
	for _, it := range items {
		pe, ok := w.elementPath(l, it)
		if !ok {
			return false
		}
		key, err := fieldpath.SerializePathElement(pe)
		if err != nil {
			return false
		}
		if j := slices.IndexFunc(elems, func(e elem) bool { return e.key == key }); j >= 0 {
			elems[j].dup = true
			continue
		}
		elems = append(elems, elem{key: key, v: it})
	}
	slices.SortFunc(elems, func(a, b elem) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	w.buf = append(w.buf, `{".":{}`...)
	for _, e := range elems {
		if e.dup {
			w.member(1, e.key)
			w.buf = append(w.buf, '{', '}')
			continue
		}
		if !w.node(1, e.key, e.v, l.ElementType) {
			return false
		}
	}
	w.buf = append(w.buf, '}')
	return true
}

// elementPath names a list element: by its key fields (or their schema
// defaults) in a list with keys, by its value in a set.
func (w *fieldsWriter) elementPath(l *schema.List, it any) (fieldpath.PathElement, bool) {
	if len(l.Keys) == 0 {
		sv, ok := smdScalar(it)
		if !ok {
			return fieldpath.PathElement{}, false
		}
		val := value.NewValueInterface(sv)
		return fieldpath.PathElement{Value: &val}, true
	}
	m, isMap := it.(map[string]any)
	eatom, found := w.s.Resolve(l.ElementType)
	if !isMap || !found || eatom.Map == nil {
		return fieldpath.PathElement{}, false
	}
	keys := value.FieldList{}
	for _, name := range l.Keys {
		kv, present := m[name]
		if !present {
			f, _ := eatom.Map.FindField(name)
			if f.Default == nil {
				continue // an element without this key field is another element
			}
			kv = f.Default
		}
		sv, ok := smdScalar(kv)
		if !ok {
			return fieldpath.PathElement{}, false
		}
		keys = append(keys, value.Field{Name: name, Value: value.NewValueInterface(sv)})
	}
	if len(keys) == 0 {
		return fieldpath.PathElement{}, false
	}
	keys.Sort()
	return fieldpath.PathElement{Key: &keys}, true
}

// fieldType is the type of field k of map type m: its declared field, or
// the type of the map's elements; found is false for neither.
func fieldType(m *schema.Map, k string) (schema.TypeRef, bool) {
	if f, ok := m.FindField(k); ok {
		return f.Type, true
	}
	if m.ElementType.NamedType == nil && m.ElementType.Inlined == (schema.Atom{}) {
		return schema.TypeRef{}, false
	}
	return m.ElementType, true
}

// smdScalar is a scalar as structured-merge-diff holds it: numbers
// (json.Number from decoding, Go numbers from defaulting) as int64 or float64.
func smdScalar(v any) (any, bool) {
	switch v := v.(type) {
	case string, bool, int64, float64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case float32:
		return float64(v), true
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, true
		}
		f, err := v.Float64()
		return f, err == nil
	}
	return nil, false
}

// scalarFits reports whether a scalar value is of scalar type t.
func scalarFits(t schema.Scalar, v any) bool {
	switch v.(type) {
	case string:
		return t == schema.String || t == schema.Untyped
	case bool:
		return t == schema.Boolean || t == schema.Untyped
	case json.Number, int, int32, int64, float32, float64: // defaulting may set Go numbers
		return t == schema.Numeric || t == schema.Untyped
	}
	return false
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
