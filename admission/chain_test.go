package admission_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capstan-io/capstan/admission"
)

// external is a validator that, like a webhook, wants only valid objects.
type external struct {
	admission.ValidatorFunc
}

func (external) RequiresValidObject() bool { return true }

func TestChain(t *testing.T) {
	var calls []string
	mut := func(name string, err error) admission.Plugin {
		return admission.MutatorFunc{PluginName: name, Fn: func(context.Context, *admission.Attributes) error { calls = append(calls, name); return err }}
	}
	val := func(name string, err error) admission.ValidatorFunc {
		return admission.ValidatorFunc{PluginName: name, Fn: func(context.Context, *admission.Attributes) error { calls = append(calls, name); return err }}
	}
	bad := func(f string) error { return admission.Invalid(field.ErrorList{field.Required(field.NewPath(f), "")}) }
	boom := errors.New("boom")
	for _, tc := range []struct {
		name      string
		plugins   []admission.Plugin
		wantCalls []string
		wantErr   string
	}{
		{"mutators before validators", []admission.Plugin{val("v1", nil), mut("m1", nil), external{val("hook", nil)}, mut("m2", nil)}, []string{"m1", "m2", "v1", "hook"}, ""},
		{"a failing mutator stops the chain", []admission.Plugin{mut("m1", boom), val("v1", nil)}, []string{"m1"}, "boom"},
		{"field errors of all validators together", []admission.Plugin{val("v1", bad("a")), val("v2", bad("b"))}, []string{"v1", "v2"}, "[a: Required value, b: Required value]"},
		{"webhooks skip invalid objects", []admission.Plugin{val("v1", bad("a")), external{val("hook", nil)}}, []string{"v1"}, "a: Required value"},
		{"another error stops validation", []admission.Plugin{val("v1", boom), val("v2", nil)}, []string{"v1"}, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = nil
			err := admission.New(tc.plugins...).Admit(context.Background(), &admission.Attributes{})
			if got := ""; err != nil {
				got = err.Error()
				if got != tc.wantErr {
					t.Errorf("err %q, want %q", got, tc.wantErr)
				}
			} else if tc.wantErr != "" {
				t.Errorf("no error, want %q", tc.wantErr)
			}
			if !reflect.DeepEqual(calls, tc.wantCalls) {
				t.Errorf("calls %v, want %v", calls, tc.wantCalls)
			}
		})
	}
}
