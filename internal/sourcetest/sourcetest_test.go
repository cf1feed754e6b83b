package sourcetest

import (
	"go/parser"
	"go/token"
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
