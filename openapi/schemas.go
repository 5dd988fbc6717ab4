package openapi

import (
	"encoding/json"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// componentSchemas returns the OpenAPI component schemas of rs: for each kind
// with a JSON Schema (apiserver/api/schemas), its definitions converted to
// OpenAPI 3.0, the kind's own carrying x-kubernetes-group-version-kind. A kind
// without a schema gets an open object with its group-version-kind.
func componentSchemas(rs []*api.Resource) map[string]any { return ComponentSchemas(rs) }

// ComponentSchemas is componentSchemas, for the server-side apply field manager.
func ComponentSchemas(rs []*api.Resource) map[string]any {
	out := map[string]any{}
	for _, r := range rs {
		gvk := []any{map[string]any{"group": r.Group, "version": r.Version, "kind": r.Kind}}
		b, ok := schemaOf(r)
		var doc struct {
			Ref  string                    `json:"$ref"`
			Defs map[string]map[string]any `json:"$defs"`
		}
		if !ok || json.Unmarshal(b, &doc) != nil {
			out[SchemaName(r)] = map[string]any{
				"type": "object", "x-kubernetes-group-version-kind": gvk, "x-kubernetes-preserve-unknown-fields": true,
				"properties": map[string]any{
					"apiVersion": map[string]any{"type": "string"}, "kind": map[string]any{"type": "string"},
					"metadata": map[string]any{"type": "object"},
				},
			}
			continue
		}
		for name, def := range doc.Defs {
			out[name] = toOpenAPI(def)
		}
		if kind, ok := out[defName(doc.Ref)].(map[string]any); ok {
			kind["x-kubernetes-group-version-kind"] = gvk
		}
	}
	return out
}

// kindSchemaName is the component name of r's kind: its schema's root definition.
func kindSchemaName(r *api.Resource) string {
	b, ok := schemaOf(r)
	if ok {
		var doc struct {
			Ref string `json:"$ref"`
		}
		if json.Unmarshal(b, &doc) == nil && doc.Ref != "" {
			return defName(doc.Ref)
		}
	}
	return SchemaName(r)
}

func defName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

// toOpenAPI converts one JSON Schema (draft 2020-12) definition to OpenAPI 3.0:
// references point into components, a reference with other keywords becomes
// allOf (3.0 ignores a $ref's siblings), and additionalProperties: false,
// which Kubernetes' documents never state, is left out.
func toOpenAPI(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			switch {
			case k == "additionalProperties" && e == false:
			case k == "$ref":
				out[k] = "#/components/schemas/" + defName(e.(string))
			default:
				out[k] = toOpenAPI(e)
			}
		}
		if ref, ok := out["$ref"]; ok && len(out) > 1 {
			delete(out, "$ref")
			out["allOf"] = []any{map[string]any{"$ref": ref}}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = toOpenAPI(e)
		}
		return out
	}
	return v
}

// schemaOf returns r's JSON Schema document: a custom resource's own, or a built-in kind's.
func schemaOf(r *api.Resource) ([]byte, bool) {
	if len(r.Schema) > 0 {
		return r.Schema, true
	}
	return api.BuiltinSchema(r.Group, r.Version, r.Kind)
}
