package registry

import (
	"sort"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
)

// matchLabelsSelector renders spec.selector as a label selector string, as the
// scale subresource reports it (matchLabels and matchExpressions).
func matchLabelsSelector(o api.Object) string {
	sel := api.NestedMap(o, "spec", "selector")
	var parts []string
	ml := api.NestedMap(sel, "matchLabels")
	keys := make([]string, 0, len(ml))
	for k := range ml {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := ml[k].(string)
		parts = append(parts, k+"="+v)
	}
	for _, e := range api.NestedSlice(sel, "matchExpressions") {
		m, _ := e.(map[string]any)
		key, op := api.NestedString(m, "key"), api.NestedString(m, "operator")
		var vals []string
		for _, v := range api.NestedSlice(m, "values") {
			s, _ := v.(string)
			vals = append(vals, s)
		}
		switch op {
		case "In":
			parts = append(parts, key+" in ("+strings.Join(vals, ",")+")")
		case "NotIn":
			parts = append(parts, key+" notin ("+strings.Join(vals, ",")+")")
		case "Exists":
			parts = append(parts, key)
		case "DoesNotExist":
			parts = append(parts, "!"+key)
		}
	}
	return strings.Join(parts, ",")
}
