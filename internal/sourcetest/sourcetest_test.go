package sourcetest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Each string literal is found once, a Join's argument marked as a path
// element; import paths and struct tags are not literals a contract spells.
func TestFileLiterals(t *testing.T) {
	const src = `package p
import "path/filepath"
type T struct{ F string ` + "`json:\"tag\"`" + ` }
var a = filepath.Join("dir", "x.json")
var b = "plain"
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range fileLiterals(fset, f) {
		if _, seen := got[l.Value]; seen {
			t.Errorf("%q found twice", l.Value)
		}
		got[l.Value] = l.Joined
	}
	want := map[string]bool{"dir": true, "x.json": true, "plain": false}
	if len(got) != len(want) {
		t.Fatalf("literals %v, want %v", got, want)
	}
	for v, joined := range want {
		if j, ok := got[v]; !ok || j != joined {
			t.Errorf("%q: found %v, joined %v; want joined %v", v, ok, j, joined)
		}
	}
}

// Every package says its one job in a package comment: the first thing a
// maintainer reads of it (go doc, go list -f '{{.Doc}}').
func TestEveryPackageSaysItsJob(t *testing.T) {
	for _, dir := range Undocumented(t, ModuleRoot(t, "../..")) {
		t.Errorf("%s: no package comment: say the package's one job in a // Package NAME ... comment above its package clause (a doc.go)", dir)
	}
}

// A directory whose files all lack a package comment is found, one with a
// comment in any file is not.
func TestUndocumentedFindsThePackageWithout(t *testing.T) {
	root := t.TempDir()
	for path, src := range map[string]string{
		"go.mod":          "module m\n",
		"a/a.go":          "// Package a does a.\npackage a\n",
		"a/b.go":          "package a\n",
		"b/b.go":          "package b // b\n",
		"b/b_test.go":     "// Package b is tested.\npackage b\n",
		"c/testdata/x.go": "package x\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := Undocumented(t, root); !slices.Equal(got, []string{"b"}) {
		t.Errorf("undocumented %v, want [b]", got)
	}
}
