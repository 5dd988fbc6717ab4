// Command schemagen writes the JSON Schema of every built-in kind into
// apiserver/api/schemas, from the k8s.io/api Go types. Run it with
// `go generate ./apiserver/api` after changing the kinds or the overlay.
//
// The schemas are generated once and checked in: the server embeds the files
// and never reflects over k8s.io/api at run time. Reflection gives the
// structure (properties, types, maps, lists, merge keys from the struct tags)
// and the descriptions (each type's SwaggerDoc, the comments k8s.io/api
// generates them from, keyed by JSON field name); overlay.go adds what Go types cannot say (enums, minimums).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// kinds are the built-in kinds that get a schema, by file name.
var kinds = map[string]any{
	"v1.Namespace":                 corev1.Namespace{},
	"v1.Pod":                       corev1.Pod{},
	"v1.Node":                      corev1.Node{},
	"v1.ConfigMap":                 corev1.ConfigMap{},
	"v1.Secret":                    corev1.Secret{},
	"v1.Service":                   corev1.Service{},
	"v1.Endpoints":                 corev1.Endpoints{},
	"v1.Event":                     corev1.Event{},
	"v1.ServiceAccount":            corev1.ServiceAccount{},
	"apps.v1.Deployment":           appsv1.Deployment{},
	"apps.v1.ReplicaSet":           appsv1.ReplicaSet{},
	"coordination.k8s.io.v1.Lease": coordinationv1.Lease{},
	"admissionregistration.k8s.io.v1.MutatingWebhookConfiguration":   admissionregistrationv1.MutatingWebhookConfiguration{},
	"admissionregistration.k8s.io.v1.ValidatingWebhookConfiguration": admissionregistrationv1.ValidatingWebhookConfiguration{},
}

type schema = map[string]any

func main() {
	out := flag.String("out", "schemas", "directory to write the schemas to")
	flag.Parse()
	if err := write(*out); err != nil {
		log.Fatal(err)
	}
}

// write generates every schema into dir.
func write(dir string) error {
	for file, v := range kinds {
		g := &gen{defs: map[string]schema{}}
		root := g.ref(reflect.TypeOf(v))
		doc := schema{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"$id":     "https://capstan.io/schemas/" + file + ".json",
			"$ref":    root["$ref"],
			"$defs":   g.defs,
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type gen struct {
	defs map[string]schema
}

// defName is the OpenAPI definition name Kubernetes uses: io.k8s.api.core.v1.PodSpec.
func defName(t reflect.Type) string {
	p := t.PkgPath()
	p = strings.Replace(p, "k8s.io/", "io.k8s.", 1)
	return strings.ReplaceAll(p, "/", ".") + "." + t.Name()
}

var (
	timeT     = reflect.TypeOf(metav1.Time{})
	microT    = reflect.TypeOf(metav1.MicroTime{})
	durationT = reflect.TypeOf(metav1.Duration{})
	quantityT = reflect.TypeOf(resource.Quantity{})
	intstrT   = reflect.TypeOf(intstr.IntOrString{})
	rawT      = reflect.TypeOf(runtime.RawExtension{})
	fieldsT   = reflect.TypeOf(metav1.FieldsV1{})
)

// special are the types with their own JSON encoding.
func special(t reflect.Type) (schema, bool) {
	switch t {
	case timeT, microT:
		return schema{"type": "string", "format": "date-time"}, true
	case durationT:
		return schema{"type": "string"}, true
	case quantityT:
		return schema{"anyOf": []any{schema{"type": "integer"}, schema{"type": "number"}, schema{"type": "string"}}, "x-kubernetes-int-or-string": true, "format": "quantity"}, true
	case intstrT:
		return schema{"anyOf": []any{schema{"type": "integer"}, schema{"type": "string"}}, "x-kubernetes-int-or-string": true}, true
	case rawT, fieldsT:
		return schema{"type": "object", "x-kubernetes-preserve-unknown-fields": true}, true
	}
	return nil, false
}

// ref returns the schema of t, registering named structs as definitions.
func (g *gen) ref(t reflect.Type) schema {
	if s, ok := special(t); ok {
		if t == rawT || t == fieldsT {
			return s
		}
		// Named like Kubernetes' definitions, so `kubectl explain` shows <IntOrString>, <Quantity>, <Time>.
		g.defs[defName(t)] = s
		return schema{"$ref": "#/$defs/" + defName(t)}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.ref(t.Elem())
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int32:
		return schema{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return schema{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number", "format": "double"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return schema{"type": "string", "format": "byte"}
		}
		return schema{"type": "array", "items": g.ref(t.Elem())}
	case reflect.Map:
		return schema{"type": "object", "additionalProperties": g.ref(t.Elem())}
	case reflect.Struct:
		name := defName(t)
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // breaks cycles
			g.defs[name] = g.object(t)
		}
		return schema{"$ref": "#/$defs/" + name}
	}
	panic(fmt.Sprintf("schemagen: no schema for %v", t))
}

// object is the schema of a struct's JSON form.
func (g *gen) object(t reflect.Type) schema {
	props := schema{}
	g.fields(t, props)
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if d := swaggerDoc(t)[""]; d != "" {
		s["description"] = d
	}
	if extra, ok := overlay[defName(t)]; ok {
		for k, v := range extra {
			s[k] = v
		}
	}
	return s
}

func (g *gen) fields(t reflect.Type, props schema) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" && (strings.Contains(opts, "inline") || tag == "") {
			g.fields(f.Type, props)
			continue
		}
		if name == "" {
			name = f.Name
		}
		ps := g.ref(f.Type)
		if _, isRef := ps["$ref"]; isRef {
			ps = schema{"$ref": ps["$ref"]}
		}
		if d := swaggerDoc(t)[name]; d != "" {
			ps["description"] = d
		}
		if v := f.Tag.Get("patchStrategy"); v != "" {
			ps["x-kubernetes-patch-strategy"] = v
		}
		if v := f.Tag.Get("patchMergeKey"); v != "" {
			ps["x-kubernetes-patch-merge-key"] = v
		}
		if extra, ok := overlay[defName(t)+"."+name]; ok {
			for k, v := range extra {
				ps[k] = v
			}
		}
		props[name] = ps
	}
}

// swaggerDoc returns the descriptions k8s.io/api and apimachinery generate
// for a struct type from its comments: "" describes the type, every other key
// is a field's JSON name. Types without one have none.
func swaggerDoc(t reflect.Type) map[string]string {
	if d, ok := reflect.New(t).Elem().Interface().(interface{ SwaggerDoc() map[string]string }); ok {
		return d.SwaggerDoc()
	}
	return nil
}
