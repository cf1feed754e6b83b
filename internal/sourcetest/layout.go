package sourcetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Importable are the directories under root (slash-separated, relative to
// it) whose non-test Go files, as Literals walks them, make a package
// another module could import: one that is not a main program and has no
// path element named internal. abbench promises no Go API, so the module
// should have none; a package found here is one to move under internal/.
func Importable(t testing.TB, root string) []string {
	t.Helper()
	found := map[string]bool{}
	walkSource(t, root, nil, parser.PackageClauseOnly, func(fset *token.FileSet, f *ast.File) {
		rel, _ := filepath.Rel(root, filepath.Dir(fset.Position(f.Package).Filename))
		rel = filepath.ToSlash(rel)
		if f.Name.Name == "main" || slices.Contains(strings.Split(rel, "/"), "internal") {
			return
		}
		found[rel] = true
	})
	out := make([]string, 0, len(found))
	for dir := range found {
		out = append(out, dir)
	}
	slices.Sort(out)
	return out
}
