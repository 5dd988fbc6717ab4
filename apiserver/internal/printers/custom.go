package printers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/client-go/util/jsonpath"

	"github.com/capstan-io/capstan/apiserver/api"
)

// ResourceColumns returns r's columns: a custom resource's
// additionalPrinterColumns after Name, else the kind's own.
func ResourceColumns(r *api.Resource) []api.TableColumnDefinition {
	if len(r.PrinterColumns) == 0 {
		return Columns(r.Kind)
	}
	cols := []api.TableColumnDefinition{nameColumn}
	for _, pc := range r.PrinterColumns {
		cols = append(cols, api.TableColumnDefinition{Name: pc.Name, Type: pc.Type, Format: pc.Format, Description: pc.Description, Priority: pc.Priority})
	}
	return cols
}

// ResourceRow returns the cells of o in the order of ResourceColumns(r).
// A column whose JSONPath finds nothing is empty (nil), as in Kubernetes; a
// date column shows the age.
func ResourceRow(r *api.Resource, o api.Object, now time.Time) []any {
	if len(r.PrinterColumns) == 0 {
		return Row(r.Kind, o, now)
	}
	cells := []any{o.Name()}
	for _, pc := range r.PrinterColumns {
		cells = append(cells, customCell(pc, o, now))
	}
	return cells
}

func customCell(pc api.PrinterColumn, o api.Object, now time.Time) any {
	jp := jsonpath.New(pc.Name).AllowMissingKeys(true)
	if err := jp.Parse(fmt.Sprintf("{%s}", pc.JSONPath)); err != nil {
		return nil
	}
	results, err := jp.FindResults(map[string]any(o))
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	v := results[0][0].Interface()
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			v = i
		} else {
			v, _ = n.Float64()
		}
	}
	switch pc.Type {
	case "date":
		if s, ok := v.(string); ok {
			return since(s, now)
		}
	case "string":
		if _, ok := v.(string); !ok {
			var buf bytes.Buffer
			json.NewEncoder(&buf).Encode(v)
			return string(bytes.TrimSpace(buf.Bytes()))
		}
	}
	return v
}
