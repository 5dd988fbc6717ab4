package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Handler serves /openapi/v3 and /openapi/v3/{api/v1|apis/group/version}.
type Handler struct {
	reg *api.Registry
}

// NewHandler returns a Handler over reg.
func NewHandler(reg *api.Registry) *Handler { return &Handler{reg: reg} }

// ServeHTTP answers the root discovery document or one group version's document.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	gv := strings.Trim(strings.TrimPrefix(r.URL.Path, "/openapi/v3"), "/")
	docs := h.documents()
	if gv == "" {
		paths := map[string]any{}
		for name, doc := range docs {
			paths[name] = map[string]string{"serverRelativeURL": "/openapi/v3/" + name + "?hash=" + hash(doc)}
		}
		writeJSON(w, map[string]any{"paths": paths})
		return
	}
	doc, ok := docs[gv]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(doc)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func hash(b []byte) string {
	s := sha512.Sum512(b)
	return strings.ToUpper(hex.EncodeToString(s[:16]))
}

// documents builds one OpenAPI v3 document per group version, keyed "api/v1" or "apis/<group>/<version>".
func (h *Handler) documents() map[string][]byte {
	byGV := map[string][]*api.Resource{}
	for _, r := range h.reg.All() {
		byGV[docName(r)] = append(byGV[docName(r)], r)
	}
	out := make(map[string][]byte, len(byGV))
	for name, rs := range byGV {
		b, _ := json.Marshal(Document(rs))
		out[name] = b
	}
	return out
}

func docName(r *api.Resource) string {
	if r.Group == "" {
		return "api/" + r.Version
	}
	return "apis/" + r.Group + "/" + r.Version
}
