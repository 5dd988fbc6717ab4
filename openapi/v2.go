package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/capstan-io/capstan/apiserver/api"
)

// ServeV2 serves /openapi/v2: one Swagger 2.0 document with the definitions
// of every resource, from the same schemas as /openapi/v3, in JSON or in the
// protobuf form (gnostic's openapi_v2.Document) that kubectl asks for.
func (h *Handler) ServeV2(w http.ResponseWriter, r *http.Request) {
	doc := V2Document(h.reg.All())
	if !wantsProtobuf(r.Header.Get("Accept")) {
		writeJSON(w, doc)
		return
	}
	b, err := json.Marshal(doc)
	if err == nil {
		var d *openapi_v2.Document
		if d, err = openapi_v2.ParseDocument(b); err == nil {
			b, err = proto.Marshal(d)
		}
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("encoding the OpenAPI v2 document: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream") // as kube-apiserver: the "@" of the asked-for type trips mime parsers
	w.Write(b)
}

// v2Protobuf starts the media types clients ask for to get the protobuf
// document (application/com.github.proto-openapi.spec.v2@v1.0+protobuf).
const v2Protobuf = "application/com.github.proto-openapi.spec.v2"

// wantsProtobuf reports whether the client prefers the protobuf document.
func wantsProtobuf(accept string) bool {
	for _, clause := range strings.Split(accept, ",") {
		// Not mime.ParseMediaType: "@" is no token character, yet it is in the type.
		mt, _, _ := strings.Cut(strings.TrimSpace(clause), ";")
		switch {
		case strings.HasPrefix(mt, v2Protobuf):
			return true
		case mt == "application/json" || mt == "*/*":
			return false
		}
	}
	return false
}

// V2Document is the Swagger 2.0 document of rs: definitions only, each kind's
// with x-kubernetes-group-version-kind, which is what `kubectl explain
// --output=plaintext-openapiv2` and other v2 readers need.
func V2Document(rs []*api.Resource) map[string]any {
	defs := map[string]any{}
	for name, s := range componentSchemas(rs) {
		defs[name] = toV2(s)
	}
	return map[string]any{
		"swagger":     "2.0",
		"info":        map[string]any{"title": "Capstan", "version": "v1.32.0"},
		"paths":       map[string]any{},
		"definitions": defs,
	}
}

// toV2 rewrites an OpenAPI 3.0 schema for Swagger 2.0: references point into
// definitions, a lone allOf reference becomes $ref again, and int-or-string (anyOf, which 2.0 lacks) becomes the
// string with format int-or-string that Kubernetes' v2 documents use.
func toV2(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t["x-kubernetes-int-or-string"] == true {
			out := map[string]any{"type": "string", "format": "int-or-string"}
			if f, ok := t["format"].(string); ok && f == "quantity" {
				out["format"] = "quantity"
			}
			return out
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if k == "$ref" {
				out[k] = "#/definitions/" + defName(e.(string))
				continue
			}
			out[k] = toV2(e)
		}
		// A reference with a description is allOf in 3.0; Kubernetes' 2.0
		// documents, and kubectl's v2 reader, put the description beside $ref.
		if all, ok := out["allOf"].([]any); ok && len(all) == 1 {
			if ref, ok := all[0].(map[string]any)["$ref"]; ok {
				delete(out, "allOf")
				out["$ref"] = ref
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = toV2(e)
		}
		return out
	}
	return v
}
