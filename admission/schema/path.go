package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// instancePath converts a JSON pointer into obj ("/spec/containers/0/image") into
// a Kubernetes field path (spec.containers[0].image) and returns the value there.
// Map entries (additionalProperties) become keys: metadata.labels[app].
func instancePath(d *doc, obj map[string]any, ptr string) (*field.Path, any) {
	var p *field.Path
	var cur any = obj
	n := d.deref(d.root)
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if seg == "" {
			continue
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case []any:
			i, _ := strconv.Atoi(seg)
			p = p.Index(i)
			n = d.items(n)
			if i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		case map[string]any:
			child, isMapKey, _ := d.property(n, seg)
			if isMapKey {
				p = p.Key(seg)
			} else {
				p = p.Child(seg)
			}
			n = child
			if n == nil {
				n = node{}
			}
			cur = c[seg]
		default:
			p = p.Child(seg)
			cur = nil
		}
	}
	if p == nil {
		p = field.NewPath("")
	}
	return p, cur
}

// plain turns json.Number into an int64 or float64, so messages print -1, not "-1".
func plain(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return v
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func toInt(v any) int {
	switch t := v.(type) {
	case float64:
		return int(t)
	case json.Number:
		i, _ := t.Int64()
		return int(i)
	case int:
		return t
	}
	return 0
}

func typeList(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var out []string
	for _, e := range asSlice(v) {
		out = append(out, fmt.Sprint(e))
	}
	return strings.Join(out, " or ")
}
