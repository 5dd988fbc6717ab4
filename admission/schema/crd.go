package schema

import (
	"encoding/json"
	"fmt"
)

// FromCRD converts a CRD version's openAPIV3Schema (an OpenAPI 3.0 structural
// schema) into a JSON Schema document for Add: nullable becomes a null type,
// x-kubernetes-int-or-string an anyOf of integer and string, and apiVersion,
// kind and metadata are added at the root as Kubernetes does (metadata keeps
// every field; the server validates it itself).
func FromCRD(openAPIV3Schema map[string]any, group, version, kind string) ([]byte, error) {
	root, _ := crdNode(openAPIV3Schema).(map[string]any)
	if root == nil {
		root = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	}
	props, _ := root["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		if root["x-kubernetes-preserve-unknown-fields"] != true {
			root["properties"] = props
		}
	}
	if root["properties"] != nil {
		props["apiVersion"] = map[string]any{"type": "string"}
		props["kind"] = map[string]any{"type": "string"}
		props["metadata"] = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	}
	name := group + "." + version + "." + kind
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://capstan.io/schemas/" + name + ".json",
		"$ref":    "#/$defs/" + name,
		"$defs":   map[string]any{name: root},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding schema of %s: %w", name, err)
	}
	return b, nil
}

// crdNode converts one OpenAPI 3.0 schema node and its children.
func crdNode(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			switch k {
			case "properties", "patternProperties", "definitions":
				m, _ := e.(map[string]any)
				conv := make(map[string]any, len(m))
				for pk, pv := range m {
					conv[pk] = crdNode(pv)
				}
				out[k] = conv
			case "items", "additionalProperties", "not":
				out[k] = crdNode(e)
			case "allOf", "anyOf", "oneOf":
				s, _ := e.([]any)
				conv := make([]any, len(s))
				for i, se := range s {
					conv[i] = crdNode(se)
				}
				out[k] = conv
			default:
				out[k] = e
			}
		}
		if out["x-kubernetes-int-or-string"] == true {
			delete(out, "type")
			out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
		if out["nullable"] == true {
			if ty, ok := out["type"].(string); ok {
				out["type"] = []any{ty, "null"}
			}
		}
		return out
	}
	return v
}
