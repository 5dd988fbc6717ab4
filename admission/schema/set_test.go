package schema_test

import (
	"testing"

	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
)

// BenchmarkNewBuiltin measures a server's start-up cost for schemas: after the
// first Set, the compiled built-in schemas come from the process-wide cache.
func BenchmarkNewBuiltin(b *testing.B) {
	rs := api.NewRegistry(api.Builtin()...).All()
	for b.Loop() {
		if _, err := schema.NewBuiltin(rs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuiltinSchemasCompile: built-in schemas compile on first use, so this
// compiles every one; each must compile.
func TestBuiltinSchemasCompile(t *testing.T) {
	rs := api.NewRegistry(api.Builtin()...).All()
	s, err := schema.NewBuiltin(rs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
