package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

// precheckObjects are valid objects of built-in kinds that exercise enums,
// bounds, int-or-string values, maps and lists.
var precheckObjects = []string{
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d","labels":{"a":"b"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u","controller":true}]},
	  "spec":{"restartPolicy":"Always","terminationGracePeriodSeconds":30,"nodeSelector":{"k":"v"},
	    "containers":[{"name":"c","image":"busybox","command":["sleep","3600"],"imagePullPolicy":"IfNotPresent",
	      "ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"A","value":"1"}],
	      "resources":{"limits":{"memory":"32Mi","cpu":"100m"}},
	      "readinessProbe":{"httpGet":{"path":"/","port":"http"},"periodSeconds":5}}],
	    "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]},
	  "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"d"},
	  "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a"]}]},
	    "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
	    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"d"},
	  "spec":{"type":"ClusterIP","selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"}]}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"d"},"data":{"k":"v"},"binaryData":{"b":"AA=="},"immutable":false}`,
	`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},
	  "status":{"capacity":{"cpu":"2"},"conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}`,
}

// TestPrecheckAgreesWithValidator: every built-in schema can be prechecked;
// precheck vouches for the valid objects; and across thousands of variants
// of them (each value in turn replaced by values of other types, outside
// enums, or out of bounds) it never vouches for one the jsonschema library
// rejects.
func TestPrecheckAgreesWithValidator(t *testing.T) {
	rs := api.NewRegistry(api.Builtin()...).All()
	s, err := NewBuiltin(rs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompileAll(); err != nil {
		t.Fatal(err)
	}
	for k, e := range s.entries {
		if !e.doc.prechecked {
			t.Errorf("%s: schema uses keywords precheck does not check", k)
		}
	}
	replacements := []any{nil, true, "x-not-in-any-enum", json.Number("-1"), json.Number("1.5"),
		json.Number("99999999999999999999"), map[string]any{"x": "y"}, []any{"z"}, map[string]any{}, []any{}}
	var variants, rejected, vouched int
	for _, src := range precheckObjects {
		obj, err := api.Decode([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		gv := obj["apiVersion"].(string)
		group, version, found := strings.Cut(gv, "/")
		if !found {
			group, version = "", gv
		}
		e := s.entries[Kind{group, version, obj["kind"].(string)}]
		if e == nil {
			t.Fatalf("no schema for %s", obj["kind"])
		}
		check := func(what string, o map[string]any) {
			variants++
			pre := e.doc.precheck(o, e.doc.deref(e.doc.root))
			lib := e.compiled.Validate(o)
			if lib != nil {
				rejected++
			}
			if pre {
				vouched++
			}
			if pre && lib != nil {
				t.Errorf("%s %s: precheck vouched for an object the validator rejects: %v", obj["kind"], what, lib)
			}
		}
		if !e.doc.precheck(map[string]any(obj), e.doc.deref(e.doc.root)) {
			t.Errorf("%s: precheck cannot vouch for a valid object", obj["kind"])
		}
		for _, path := range leafPaths(map[string]any(obj), "") {
			for _, r := range replacements {
				o := api.DeepCopyValue(map[string]any(obj)).(map[string]any)
				setPath(o, path, r)
				check(fmt.Sprintf("%s=%v", path, r), o)
			}
		}
	}
	if rejected == 0 || vouched == 0 {
		t.Fatalf("%d variants: %d rejected by the validator, %d vouched for: not a test of both sides", variants, rejected, vouched)
	}
	t.Logf("%d variants: the validator rejected %d, precheck vouched for %d", variants, rejected, vouched)
}

// leafPaths lists the paths (a/b/0/c) of every value in v, containers included.
func leafPaths(v any, prefix string) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p := prefix + "/" + k
			out = append(out, p)
			out = append(out, leafPaths(c, p)...)
		}
	case []any:
		for i, c := range t {
			p := fmt.Sprintf("%s/%d", prefix, i)
			out = append(out, p)
			out = append(out, leafPaths(c, p)...)
		}
	}
	return out
}

// setPath replaces the value at path in v.
func setPath(v any, path string, r any) {
	segs := splitPath(path)
	for i, s := range segs {
		last := i == len(segs)-1
		switch t := v.(type) {
		case map[string]any:
			if last {
				t[s] = r
				return
			}
			v = t[s]
		case []any:
			var n int
			fmt.Sscan(s, &n)
			if last {
				t[n] = r
				return
			}
			v = t[n]
		}
	}
}

func splitPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "/"), "/") }
