package sourcetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// abbench promises no Go API: every library package is under internal/,
// and outside it only main programs (cmd/, bench/) are left, so no other
// module can come to depend on a package the README does not promise.
func TestOnlyMainPackagesOutsideInternal(t *testing.T) {
	for _, dir := range Importable(t, ModuleRoot(t, "../..")) {
		t.Errorf("%s: a library package outside internal/ (an API abbench does not promise): move it under internal/", dir)
	}
}

// A library package outside internal/ is found; main programs, packages
// under an internal/ element at any depth, tests, test data and another
// module nested in the tree are not.
func TestImportableFindsLibrariesOutsideInternal(t *testing.T) {
	root := t.TempDir()
	for path, src := range map[string]string{
		"go.mod":                     "module m\n",
		"lib/lib.go":                 "package lib\n",
		"cmd/tool/main.go":           "package main\n",
		"cmd/tool/internal/x/x.go":   "package x\n",
		"cmd/lib/lib.go":             "package lib\n",
		"bench/gen/main.go":          "package main\n",
		"internal/a/a.go":            "package a\n",
		"internal/a/b/b.go":          "package b\n",
		"main/only_test.go":          "package lib\n",
		"tool/testdata/src/p/p.go":   "package p\n",
		"tool/main.go":               "package main\n",
		"nested/go.mod":              "module n\n",
		"nested/n.go":                "package n\n",
		"tool/main_external_test.go": "package main_test\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := Importable(t, root), []string{"cmd/lib", "lib"}; !slices.Equal(got, want) {
		t.Errorf("importable %v, want %v", got, want)
	}
}
