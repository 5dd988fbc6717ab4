package openapi

import (
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Document is the OpenAPI v3 document of some resources of one group version.
func Document(rs []*api.Resource) map[string]any {
	paths := map[string]any{}
	schemas := componentSchemas(rs)
	for _, r := range rs {
		gvk := map[string]string{"group": r.Group, "version": r.Version, "kind": r.Kind}
		ref := map[string]any{"$ref": "#/components/schemas/" + kindSchemaName(r)}
		coll, item := collectionPath(r), collectionPath(r)+"/{name}"
		verbs := verbSet(r.ServedVerbs())
		// Only the verbs r serves: the review kinds are create-only, and a
		// client that trusts the document must not be sent to a 405.
		addOps(paths, coll, verbs, map[string]opSpec{
			"list":             {"get", op("list", r, gvk, ref, listParams)},
			"create":           {"post", op("post", r, gvk, ref, writeParams)},
			"deletecollection": {"delete", op("deletecollection", r, gvk, ref, nil)},
		})
		addOps(paths, item, verbs, map[string]opSpec{
			"get":    {"get", op("get", r, gvk, ref, nil)},
			"update": {"put", op("put", r, gvk, ref, writeParams)},
			"patch":  {"patch", op("patch", r, gvk, ref, append(writeParams, "force"))},
			"delete": {"delete", op("delete", r, gvk, ref, []string{"dryRun", "gracePeriodSeconds", "propagationPolicy"})},
		})
		for _, sub := range r.Subresources {
			addOps(paths, item+"/"+sub, subresourceVerbs(sub), map[string]opSpec{
				"get":    {"get", op("get", r, gvk, ref, nil)},
				"update": {"put", op("put", r, gvk, ref, writeParams)},
				"patch":  {"patch", op("patch", r, gvk, ref, append(writeParams, "force"))},
				"create": {"post", op("post", r, gvk, ref, writeParams)},
			})
		}
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]any{"title": "Capstan", "version": "v1.32.0"},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
}

// opSpec is the HTTP method of a verb's operation, and the operation.
type opSpec struct {
	method string
	op     map[string]any
}

// addOps puts under path the operations of the verbs in served, if any.
func addOps(paths map[string]any, path string, served map[string]bool, ops map[string]opSpec) {
	item := map[string]any{}
	for verb, o := range ops {
		if served[verb] {
			item[o.method] = o.op
		}
	}
	if len(item) > 0 {
		paths[path] = item
	}
}

func verbSet(verbs []string) map[string]bool {
	out := make(map[string]bool, len(verbs))
	for _, v := range verbs {
		out[v] = true
	}
	return out
}

// subresourceVerbs are the verbs the hub serves on a subresource, as its
// discovery lists them: binding and token are created, log is read,
// finalize is replaced, status and scale are read, replaced and patched.
func subresourceVerbs(sub string) map[string]bool {
	switch sub {
	case "binding", "token":
		return verbSet([]string{"create"})
	case "log":
		return verbSet([]string{"get"})
	case "finalize":
		return verbSet([]string{"update"})
	}
	return verbSet([]string{"get", "update", "patch"})
}

var (
	listParams  = []string{"labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "resourceVersionMatch", "watch", "allowWatchBookmarks", "sendInitialEvents", "timeoutSeconds"}
	writeParams = []string{"dryRun", "fieldManager", "fieldValidation"}
)

// op is one operation with its Kubernetes extensions and query parameters.
func op(action string, r *api.Resource, gvk map[string]string, ref map[string]any, params []string) map[string]any {
	ps := []any{}
	for _, p := range params {
		ps = append(ps, map[string]any{"name": p, "in": "query", "schema": map[string]any{"type": "string"}, "uniqueItems": true})
	}
	return map[string]any{
		"operationId":                     action + r.Kind,
		"parameters":                      ps,
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": gvk,
		"responses": map[string]any{"200": map[string]any{"description": "OK",
			"content": map[string]any{"application/json": map[string]any{"schema": ref}}}},
	}
}

// collectionPath is the path of r's collection, namespaced where r is.
func collectionPath(r *api.Resource) string {
	base := "/api/" + r.Version
	if r.Group != "" {
		base = "/apis/" + r.Group + "/" + r.Version
	}
	if r.Namespaced {
		return base + "/namespaces/{namespace}/" + r.Name
	}
	return base + "/" + r.Name
}

// SchemaName is the component name of r's schema, as Kubernetes names it (io.k8s.api.core.v1.Pod).
func SchemaName(r *api.Resource) string {
	g := strings.TrimSuffix(r.Group, ".k8s.io")
	if g == "" {
		g = "core"
	}
	return "io.k8s.api." + g + "." + r.Version + "." + r.Kind
}
