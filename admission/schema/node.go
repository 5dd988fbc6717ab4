package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// node is one decoded JSON Schema object inside a schema document.
type node map[string]any

// doc is a decoded schema document with $defs to resolve references against.
type doc struct {
	root node
	// prechecked is whether precheck can vouch for objects (precheck.go).
	prechecked bool
	refs       sync.Map // $ref → node, as deref resolved it
}

func parseDoc(b []byte) (*doc, error) {
	var root node
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("decoding schema: %w", err)
	}
	return &doc{root: root, prechecked: prechecks(root)}, nil
}

// deref follows $ref (only local "#/..." references) until a schema without one.
func (d *doc) deref(n node) node {
	for i := 0; n != nil && i < 32; i++ {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		if r, ok := d.refs.Load(ref); ok {
			n = r.(node)
			continue
		}
		n = d.pointer(strings.TrimPrefix(ref, "#"))
		d.refs.Store(ref, n)
	}
	return n
}

// pointer resolves a JSON pointer ("/$defs/x/properties/y") in the document.
func (d *doc) pointer(ptr string) node {
	var cur any = map[string]any(d.root)
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if seg == "" {
			continue
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case node:
			cur = c[seg]
		default:
			return nil
		}
	}
	return asNode(cur)
}

// value resolves a JSON pointer to any value in the document.
func (d *doc) value(ptr string) any {
	i := strings.LastIndex(ptr, "/")
	if i < 0 {
		return nil
	}
	parent := d.pointer(ptr[:i])
	if parent == nil {
		return nil
	}
	return parent[ptr[i+1:]]
}

func asNode(v any) node {
	switch t := v.(type) {
	case map[string]any:
		return node(t)
	case node:
		return t
	}
	return nil
}

// types returns the JSON types the schema allows; nil means any.
func (n node) types() []string {
	switch t := n["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if n.intOrString() {
		return []string{"integer", "number", "string"}
	}
	return nil
}

func (n node) flag(k string) bool { b, _ := n[k].(bool); return b }

func (n node) intOrString() bool { return n.flag("x-kubernetes-int-or-string") }

func (n node) preserveUnknown() bool { return n.flag("x-kubernetes-preserve-unknown-fields") }

// property returns the schema of an object's field and whether it is a map entry.
// ok is false when the field is not allowed.
func (d *doc) property(n node, name string) (child node, isMapKey, ok bool) {
	if props := asNode(n["properties"]); props != nil {
		if p, found := props[name]; found {
			return d.deref(asNode(p)), false, true
		}
	}
	switch ap := n["additionalProperties"].(type) {
	case bool:
		if ap {
			return node{}, true, true
		}
		return nil, false, false
	case map[string]any:
		return d.deref(node(ap)), true, true
	}
	if n.preserveUnknown() {
		return node{}, false, true
	}
	// A schema without properties or additionalProperties allows any field.
	return node{}, false, asNode(n["properties"]) == nil
}

// items returns the schema of an array's elements.
func (d *doc) items(n node) node {
	if it := asNode(n["items"]); it != nil {
		return d.deref(it)
	}
	return node{}
}
