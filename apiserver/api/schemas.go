package api

import (
	"embed"
	"io/fs"
	"strings"
)

//go:generate go run ./internal/schemagen -out schemas

// schemaFiles are the JSON Schemas (draft 2020-12) of the built-in kinds,
// generated once from the k8s.io/api types by internal/schemagen and checked in.
// Each file is named <group.>version.Kind.json and holds the kind's definition
// and every definition it references under $defs, named as Kubernetes names
// its OpenAPI definitions (io.k8s.api.core.v1.PodSpec). They are the one
// source of truth for admission and the OpenAPI documents.
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// SchemaName is the file name of the schema of a group, version and kind.
func SchemaName(group, version, kind string) string {
	if group == "" {
		return version + "." + kind + ".json"
	}
	return group + "." + version + "." + kind + ".json"
}

// BuiltinSchema returns the JSON Schema document of a built-in kind, if it has one.
func BuiltinSchema(group, version, kind string) ([]byte, bool) {
	b, err := schemaFiles.ReadFile("schemas/" + SchemaName(group, version, kind))
	return b, err == nil
}

// BuiltinSchemaNames lists the schema files, for tests and tools.
func BuiltinSchemaNames() []string {
	ents, _ := fs.ReadDir(schemaFiles, "schemas")
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") {
			out = append(out, e.Name())
		}
	}
	return out
}
