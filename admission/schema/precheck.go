package schema

import (
	"encoding/json"
	"math/big"
)

// Validating with the jsonschema library costs a create of a built-in kind
// more than anything else admission does: it allocates for every value it
// visits. The built-in schemas use only a few keywords (types, enum,
// minimum, maximum, anyOf, properties, additionalProperties, items), so a
// walk that checks exactly those can tell that an object is valid without
// the library. Only an object it cannot vouch for goes to the library, which
// then gives the errors. TestPrecheckAgreesWithValidator holds the walk to
// the library's verdict.

// checkedKeywords are the keywords (*) precheck checks, and the ones it may
// ignore because the library ignores them too (descriptions, Kubernetes
// extensions, formats, which draft 2020 only annotates).
var checkedKeywords = map[string]bool{
	"type": true, "enum": true, "minimum": true, "maximum": true, "anyOf": true, // *
	"properties": true, "additionalProperties": true, "items": true, "$ref": true, // *
	"$defs": true, "$id": true, "$schema": true, "description": true, "format": true,
	"x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true,
	"x-kubernetes-patch-merge-key": true, "x-kubernetes-patch-strategy": true,
	"x-kubernetes-list-type": true, "x-kubernetes-list-map-keys": true, "x-kubernetes-map-type": true,
	"x-kubernetes-embedded-resource": true, "nullable": true, "default": true, "title": true,
}

// prechecks reports whether every schema in the document uses only
// checkedKeywords, and a $ref only beside annotations, so precheck's verdict
// is the library's.
func prechecks(n node) bool {
	_, hasRef := n["$ref"]
	for k, v := range n {
		if !checkedKeywords[k] {
			return false
		}
		switch k {
		case "type", "enum", "minimum", "maximum", "anyOf", "properties", "additionalProperties", "items":
			if hasRef { // draft 2020 applies them beside $ref; deref does not
				return false
			}
		}
		switch k {
		case "properties", "$defs":
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, s := range m {
				if sn := asNode(s); sn == nil || !prechecks(sn) {
					return false
				}
			}
		case "additionalProperties", "items":
			if _, isBool := v.(bool); isBool {
				continue
			}
			if sn := asNode(v); sn == nil || !prechecks(sn) {
				return false
			}
		case "anyOf":
			l, ok := v.([]any)
			if !ok {
				return false
			}
			for _, s := range l {
				if sn := asNode(s); sn == nil || !prechecks(sn) {
					return false
				}
			}
		}
	}
	return true
}

// precheck reports whether v surely satisfies schema n (dereferenced) of a
// document for which prechecks holds; false means it cannot tell.
func (d *doc) precheck(v any, n node) bool {
	if n == nil {
		return true
	}
	if ts := n.types(); ts != nil && !n.intOrString() {
		got := "null"
		if v != nil {
			got = jsonType(v)
		}
		if !typeAllowed(n, got) {
			return false
		}
	}
	if e, ok := n["enum"].([]any); ok && !inEnum(v, e) {
		return false
	}
	if !inRange(v, n) {
		return false
	}
	if alts, ok := n["anyOf"].([]any); ok {
		matched := false
		for _, a := range alts {
			if d.precheck(v, d.deref(asNode(a))) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	switch t := v.(type) {
	case map[string]any:
		props := asNode(n["properties"])
		for k, cv := range t {
			if p, found := props[k]; found {
				if !d.precheck(cv, d.deref(asNode(p))) {
					return false
				}
				continue
			}
			switch ap := n["additionalProperties"].(type) {
			case bool:
				if !ap {
					return false
				}
			case map[string]any:
				if !d.precheck(cv, d.deref(node(ap))) {
					return false
				}
			}
		}
	case []any:
		if it := asNode(n["items"]); it != nil {
			it = d.deref(it)
			for _, e := range t {
				if !d.precheck(e, it) {
					return false
				}
			}
		}
	}
	return true
}

// inEnum reports whether v equals one of enum's values (strings and
// booleans exactly, numbers by value).
func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		switch ev := e.(type) {
		case string:
			if s, ok := v.(string); ok && s == ev {
				return true
			}
		case bool:
			if b, ok := v.(bool); ok && b == ev {
				return true
			}
		case nil:
			if v == nil {
				return true
			}
		default:
			a, b := number(v), number(e)
			if a != nil && b != nil && a.Cmp(b) == 0 {
				return true
			}
		}
	}
	return false
}

// inRange reports whether a number v is within n's minimum and maximum; a
// non-number, or a schema without them, is.
func inRange(v any, n node) bool {
	lo, hasLo := n["minimum"]
	hi, hasHi := n["maximum"]
	if !hasLo && !hasHi {
		return true
	}
	x := number(v)
	if x == nil {
		_, isMap := v.(map[string]any)
		_, isList := v.([]any)
		_, isStr := v.(string)
		_, isBool := v.(bool)
		return v == nil || isMap || isList || isStr || isBool // bounds apply to numbers only
	}
	if hasLo {
		l := number(lo)
		if l == nil || x.Cmp(l) < 0 {
			return false
		}
	}
	if hasHi {
		h := number(hi)
		if h == nil || x.Cmp(h) > 0 {
			return false
		}
	}
	return true
}

// number is v's exact value, nil for a non-number.
func number(v any) *big.Rat {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = string(t)
	case float64:
		if r := new(big.Rat); r.SetFloat64(t) != nil {
			return r
		}
		return nil
	case int:
		return new(big.Rat).SetInt64(int64(t))
	case int32:
		return new(big.Rat).SetInt64(int64(t))
	case int64:
		return new(big.Rat).SetInt64(t)
	default:
		return nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}
