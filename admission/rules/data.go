package rules

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/apiserver/api"
)

// validateDataKeys checks the keys of a ConfigMap's or Secret's data and binaryData.
func validateDataKeys(o api.Object) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []string{"data", "binaryData", "stringData"} {
		m, _ := o[k].(map[string]any)
		for _, key := range sortedKeys(m) {
			for _, msg := range validation.IsConfigMapKey(key) {
				errs = append(errs, field.Invalid(field.NewPath(k).Key(key), key, msg))
			}
		}
	}
	return errs
}

// validateImmutableData: once `immutable: true`, data and immutable never change.
func validateImmutableData(o, old api.Object) field.ErrorList {
	if b, _ := old["immutable"].(bool); !b {
		return nil
	}
	var errs field.ErrorList
	if b, _ := o["immutable"].(bool); !b {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
	}
	for _, k := range []string{"data", "binaryData"} {
		if !reflect.DeepEqual(o[k], old[k]) {
			errs = append(errs, field.Forbidden(field.NewPath(k), "field is immutable when `immutable` is set"))
		}
	}
	return errs
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// stringMap returns the string values of a JSON object.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, e := range m {
		if s, ok := e.(string); ok {
			out[k] = s
		}
	}
	return out
}

// remarshal decodes a JSON value into a Go type.
func remarshal(v any, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// plainValue turns json.Number into a number for messages.
func plainValue(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return v
}
