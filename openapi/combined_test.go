package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/openapi"
)

var update = flag.Bool("update", false, "rewrite the checked-in combined OpenAPI document")

// TestCombinedUpToDate fails when openapi/capstan.openapi.json differs from
// what the server's registry and schemas give: run `go test ./openapi -update`
// and regenerate the SDK (see README).
func TestCombinedUpToDate(t *testing.T) {
	got, err := json.MarshalIndent(openapi.Combined(api.NewRegistry(api.Builtin()...).All()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Base(openapi.CombinedFile)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go test ./openapi -update, then go generate ./openapi/sdk", openapi.CombinedFile)
	}
}
