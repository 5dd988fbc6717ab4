package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSchemasUpToDate fails when the checked-in schemas differ from what the
// generator writes now: run `go generate ./apiserver/api`.
func TestSchemasUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	gen, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	have, _ := filepath.Glob(filepath.Join("..", "..", "schemas", "*.json"))
	if len(gen) != len(have) {
		t.Errorf("%d schemas generated, %d checked in: run go generate ./apiserver/api", len(gen), len(have))
	}
	for _, g := range gen {
		want, _ := os.ReadFile(g)
		got, err := os.ReadFile(filepath.Join("..", "..", "schemas", filepath.Base(g)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go generate ./apiserver/api", filepath.Base(g))
		}
	}
}
