package endpoints

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

func TestStoredLayoutRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"configmap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n","resourceVersion":"3"},"data":{"k":"\"metadata\":{"}}`},
		{"nested metadata", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`},
		{"only metadata", `{"metadata":{"name":"x"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := api.Decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			stored, err := encodeForStorage(o)
			if err != nil {
				t.Fatal(err)
			}
			if o.ResourceVersion() != api.Object(mustDecode(t, tc.in)).ResourceVersion() {
				t.Fatal("encodeForStorage changed the object it encoded")
			}
			got, err := WithResourceVersion(stored, 42)
			if err != nil {
				t.Fatal(err)
			}
			want := mustDecode(t, tc.in)
			want.SetResourceVersion(42)
			if g := mustDecode(t, string(got)); !reflect.DeepEqual(g, want) {
				t.Fatalf("round trip:\n got %s\nwant %v", got, want)
			}
		})
	}
	// Values written in another layout are still served correctly.
	got, err := WithResourceVersion([]byte(`{"kind":"ConfigMap","metadata":{"name":"a"}}`), 7)
	if err != nil || mustDecode(t, string(got)).ResourceVersion() != "7" {
		t.Fatalf("fallback: %s %v", got, err)
	}
}

func mustDecode(t *testing.T, s string) api.Object {
	t.Helper()
	var o api.Object
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return o
}
