package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// decodeResult is what walking an object against its schema found.
type decodeResult struct {
	unknown []string // paths of unknown fields, pruned from the object
	wrong   []typeError
}

type typeError struct {
	path *field.Path
	got  string // JSON type found
	want string // type the schema wants (its format when it has one)
}

// step is one step of the walk's position: a field, map key or list index.
// The walker keeps its position as a stack of steps and makes a field.Path
// of it only for a finding, so a valid object costs no path allocations.
type step struct {
	name   string // field name or map key; "" for a list index
	index  int
	mapKey bool
}

// path is the walker's position as a field.Path.
func (w *walker) path() *field.Path {
	var p *field.Path
	for _, s := range w.at {
		switch {
		case s.name == "" && !s.mapKey:
			p = p.Index(s.index)
		case s.mapKey:
			p = p.Key(s.name)
		case p == nil:
			p = field.NewPath(s.name)
		default:
			p = p.Child(s.name)
		}
	}
	return p
}

// sorted orders the findings by path, so messages do not depend on map order.
func (r *decodeResult) sorted() {
	slices.Sort(r.unknown)
	slices.SortStableFunc(r.wrong, func(a, b typeError) int { return strings.Compare(a.path.String(), b.path.String()) })
}

// walker prunes unknown fields and nulls and finds values of the wrong type.
type walker struct {
	d          *doc
	checkTypes bool
	res        decodeResult
	at         []step // where the walk is
}

// walk visits v (whose schema is n) at w.at and returns v with unknown fields
// pruned; keep is false when v itself should be dropped (a null).
func (w *walker) walk(v any, n node) (out any, keep bool) {
	if v == nil {
		return nil, n.flag("nullable")
	}
	got := jsonType(v)
	if w.checkTypes && !typeAllowed(n, got) {
		want := strings.Join(n.types(), " or ")
		if f, ok := n["format"].(string); ok && f != "" && !n.intOrString() {
			want = f
		}
		w.res.wrong = append(w.res.wrong, typeError{path: w.path(), got: got, want: want})
		return v, true
	}
	switch t := v.(type) {
	case map[string]any:
		if n.preserveUnknown() && asNode(n["properties"]) == nil && n["additionalProperties"] == nil {
			return t, true
		}
		for k, cv := range t {
			child, isMapKey, ok := w.d.property(n, k)
			w.at = append(w.at, step{name: k, mapKey: isMapKey})
			if !ok {
				w.res.unknown = append(w.res.unknown, w.path().String())
				w.at = w.at[:len(w.at)-1]
				delete(t, k)
				continue
			}
			nv, keep := w.walk(cv, child)
			w.at = w.at[:len(w.at)-1]
			if !keep {
				delete(t, k)
				continue
			}
			t[k] = nv
		}
		w.applyDefaults(t, n)
		return t, true
	case []any:
		items := w.d.items(n)
		kept := t[:0]
		for i, e := range t {
			w.at = append(w.at, step{index: i})
			nv, keep := w.walk(e, items)
			w.at = w.at[:len(w.at)-1]
			if keep {
				kept = append(kept, nv)
			}
		}
		return kept, true
	}
	return v, true
}

// jsonType names the JSON type of a decoded value; whole numbers are "integer".
func jsonType(v any) string {
	switch t := v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := t.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if t == float64(int64(t)) {
			return "integer"
		}
		return "number"
	case int, int32, int64:
		return "integer"
	}
	return fmt.Sprintf("%T", v)
}

func typeAllowed(n node, got string) bool {
	ts := n.types()
	if ts == nil {
		return true
	}
	for _, t := range ts {
		if t == got || (t == "number" && got == "integer") {
			return true
		}
	}
	return false
}

// goType is how Kubernetes' decoder names a JSON type in its message.
func goType(jsonType string) string {
	switch jsonType {
	case "integer", "number":
		return "number"
	case "boolean":
		return "bool"
	}
	return jsonType
}

// applyDefaults sets each missing property that has a default in the schema
// (custom resources state defaults there; built-in kinds get theirs from the
// Defaults plugin). A defaulted object is walked too, for nested defaults.
// Each default is independent of the others, so their order does not matter.
func (w *walker) applyDefaults(m map[string]any, n node) {
	for k, pv := range asNode(n["properties"]) {
		p := w.d.deref(asNode(pv))
		def, ok := p["default"]
		if _, present := m[k]; present || !ok {
			continue
		}
		v := deepCopyJSON(def)
		if obj, isObj := v.(map[string]any); isObj {
			w.applyDefaults(obj, p)
		}
		m[k] = v
	}
}

// deepCopyJSON copies a decoded JSON value (a schema's default).
func deepCopyJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil {
		return v
	}
	return out
}
