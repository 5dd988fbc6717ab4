package endpoints

import (
	"encoding/json"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/printers"
)

// table renders objects as a meta.k8s.io/v1 Table with kubectl's columns.
func (h *Handler) table(res *api.Resource, objs []api.Object, rv string, out output) *api.Table {
	now := h.cfg.Now()
	t := &api.Table{
		TypeMeta:          api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"},
		Metadata:          api.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: printers.ResourceColumns(res),
		Rows:              make([]api.TableRow, 0, len(objs)),
	}
	for _, o := range objs {
		t.Rows = append(t.Rows, api.TableRow{Cells: printers.ResourceRow(res, o, now), Object: rowObject(o, out.includeObject)})
	}
	return t
}

// rowObject is what a table row carries of its object: nothing, its metadata, or all of it.
func rowObject(o api.Object, include string) json.RawMessage {
	var v any
	switch include {
	case "None":
		return nil
	case "Object":
		v = o
	default:
		v = map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}
	}
	b, _ := json.Marshal(v)
	return b
}
