package plugins_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/admission"
	"github.com/capstan-io/capstan/admission/plugins"
	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
)

func builtinSchemas(t testing.TB) (*schema.Set, []*api.Resource) {
	t.Helper()
	reg := api.NewRegistry(api.Builtin()...)
	s, err := schema.NewBuiltin(reg.All())
	if err != nil {
		t.Fatal(err)
	}
	return s, reg.All()
}

func TestNew(t *testing.T) {
	s, _ := builtinSchemas(t)
	for _, tc := range []struct {
		name      string
		disabled  []string
		wantNames []string
		wantErr   string
	}{
		{"all", nil, []string{"SchemaDecode", "Defaults", "SchemaValidation", "KindRules"}, ""},
		{"without KindRules", []string{"KindRules"}, []string{"SchemaDecode", "Defaults", "SchemaValidation"}, ""},
		{"required plugin", []string{"SchemaValidation"}, nil, "cannot be disabled"},
		{"unknown plugin", []string{"Nope"}, nil, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := plugins.New(plugins.Deps{Schemas: s}, tc.disabled)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Names(); !reflect.DeepEqual(got, tc.wantNames) {
				t.Errorf("names %v, want %v", got, tc.wantNames)
			}
		})
	}
	if got := plugins.Names(); len(got) != 5 {
		t.Errorf("Names() = %v", got)
	}
}

// FuzzAdmit runs decode → default → validate on arbitrary JSON for every
// built-in kind. The chain must never panic, must fail only with admission
// errors, and an object it accepts must be accepted again unchanged (defaults
// are idempotent). `go test` runs the seeds; `go test -fuzz FuzzAdmit` explores.
func FuzzAdmit(f *testing.F) {
	for _, seed := range []string{
		`{"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}}`,
		`{"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}],"restartPolicy":"Never"}}`,
		`{"spec":{"replicas":-1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`,
		`{"spec":{"replicas":"three"}}`,
		`{"spec":{"ports":[{"port":80,"targetPort":"http"}],"type":"NodePort"}}`,
		`{"data":{"a":"b"},"immutable":true,"binaryData":{"x":"AA=="}}`,
		`{"stringData":{"a":"b"},"type":"kubernetes.io/tls"}`,
		`{"spec":{"holderIdentity":"x","leaseDurationSeconds":15,"renewTime":"2024-01-01T00:00:00.000000Z"}}`,
		`{"metadata":{"labels":null,"x":1},"spec":null,"status":{"phase":7}}`,
		`{"spec":{"containers":[null,{},[],"x",1]}}`,
		`{"spec":{"template":{"spec":{"containers":[{"resources":{"requests":{"cpu":1.5,"memory":"1e3"}}}]}}}}`,
	} {
		f.Add(seed)
	}
	s, rs := builtinSchemas(f)
	chain, err := plugins.New(plugins.Deps{Schemas: s}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, r := range rs {
			o, err := api.Decode([]byte(body))
			if err != nil {
				return
			}
			o["apiVersion"], o["kind"] = r.GroupVersion(), r.Kind
			o.Meta()["name"] = "x"
			a := &admission.Attributes{Operation: admission.Create, Resource: r, Object: o, FieldValidation: admission.Warn}
			err = chain.Admit(context.Background(), a)
			if err != nil {
				if _, ok := admission.AsError(err); !ok {
					t.Fatalf("%s: non-admission error %v", r.Kind, err)
				}
				continue
			}
			again := o.DeepCopy()
			b := &admission.Attributes{Operation: admission.Update, Resource: r, Object: again, OldObject: o, FieldValidation: admission.Strict}
			if err := chain.Admit(context.Background(), b); err != nil {
				t.Fatalf("%s: accepted object rejected on a second pass: %v\n%v", r.Kind, err, o)
			}
			if !reflect.DeepEqual(again, o) {
				t.Fatalf("%s: defaults not idempotent:\n%v\n%v", r.Kind, o, again)
			}
		}
	})
}
