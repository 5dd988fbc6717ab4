package openapi

import (
	"github.com/capstan-io/capstan/apiserver/api"
)

// CombinedFile is where the combined document is checked in, relative to the module root.
const CombinedFile = "openapi/capstan.openapi.json"

// Combined is one OpenAPI 3.0 document for SDK generators: every resource's
// create, list, get, replace and delete, as far as it serves them, with declared path parameters, unique
// operation ids (listCoreV1NamespacedPod) and a <Kind>List schema per kind,
// over the same component schemas the server publishes per group version.
func Combined(rs []*api.Resource) map[string]any {
	schemas := componentSchemas(rs)
	paths := map[string]any{}
	for _, r := range rs {
		kind := kindSchemaName(r)
		list := kind + "List"
		schemas[list] = map[string]any{
			"type": "object", "required": []any{"items"},
			"x-kubernetes-group-version-kind": []any{map[string]any{"group": r.Group, "version": r.Version, "kind": r.ListKind()}},
			"properties": map[string]any{
				"apiVersion": map[string]any{"type": "string"},
				"kind":       map[string]any{"type": "string"},
				"metadata":   map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"},
				"items":      map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/" + kind}},
			},
		}
		if _, ok := schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"]; !ok {
			schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"] = map[string]any{"type": "object", "properties": map[string]any{
				"resourceVersion": map[string]any{"type": "string"}, "continue": map[string]any{"type": "string"},
			}}
		}
		id := opSuffix(r)
		var ns []any
		if r.Namespaced {
			ns = []any{pathParam("namespace")}
		}
		name := append(append([]any{}, ns...), pathParam("name"))
		body := func(ref string) map[string]any {
			return map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + ref}}}}
		}
		resp := func(code, ref string) map[string]any {
			return map[string]any{code: map[string]any{"description": "OK", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + ref}}}}}
		}
		verbs := verbSet(r.ServedVerbs())
		coll := map[string]any{"parameters": ns}
		if verbs["list"] {
			coll["get"] = map[string]any{"operationId": "list" + id, "tags": []any{tag(r)}, "responses": resp("200", list),
				"parameters": []any{queryParam("labelSelector"), queryParam("fieldSelector"), queryParam("limit"), queryParam("continue")}}
		}
		if verbs["create"] {
			coll["post"] = map[string]any{"operationId": "create" + id, "tags": []any{tag(r)}, "requestBody": body(kind), "responses": resp("201", kind),
				"parameters": []any{queryParam("dryRun"), queryParam("fieldValidation")}}
		}
		paths[collectionPath(r)] = coll
		item := map[string]any{"parameters": name}
		if verbs["get"] {
			item["get"] = map[string]any{"operationId": "read" + id, "tags": []any{tag(r)}, "responses": resp("200", kind)}
		}
		if verbs["update"] {
			item["put"] = map[string]any{"operationId": "replace" + id, "tags": []any{tag(r)}, "requestBody": body(kind), "responses": resp("200", kind),
				"parameters": []any{queryParam("dryRun"), queryParam("fieldValidation")}}
		}
		if verbs["delete"] {
			item["delete"] = map[string]any{"operationId": "delete" + id, "tags": []any{tag(r)}, "responses": resp("200", kind)}
		}
		if len(item) > 1 { // more than its parameters: create-only kinds have no item path
			paths[collectionPath(r)+"/{name}"] = item
		}
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]any{"title": "Capstan", "version": "v1.32.0", "description": "The Kubernetes-compatible API Capstan serves, for SDK generators."},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
}

// opSuffix names r's operations as Kubernetes does: CoreV1NamespacedPod, AppsV1Deployment...
func opSuffix(r *api.Resource) string {
	s := tag(r)
	if r.Namespaced {
		s += "Namespaced"
	}
	return s + r.Kind
}

// tag is the group-version part of operation ids: CoreV1, AppsV1, CoordinationV1.
func tag(r *api.Resource) string {
	g := r.Group
	if g == "" {
		g = "core"
	}
	out := []byte{}
	upper := true
	for _, c := range []byte(g[:indexOrLen(g, '.')] + "_" + r.Version) {
		if c == '_' {
			upper = true
			continue
		}
		if upper && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper = false
		out = append(out, c)
	}
	return string(out)
}

func indexOrLen(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return len(s)
}

func pathParam(name string) map[string]any {
	return map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}}
}

func queryParam(name string) map[string]any {
	t := "string"
	if name == "limit" {
		t = "integer"
	}
	return map[string]any{"name": name, "in": "query", "schema": map[string]any{"type": t}}
}
