package sourcetest

import (
	"go/ast"
	"go/printer"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// Decision is a place where code decides on words meant for a person: an
// error's text (X.Error()) or a censor reason's detail (X.Detail), which
// are reworded, wrapped and quoted (a reason quotes a rank's last log
// line) without notice. Behaviour depends on typed errors (errors.Is,
// errors.As), exit statuses and codes instead.
type Decision struct {
	Pos  token.Position
	Expr string // the matching expression, as the source writes it
}

// textTests are the functions of packages strings and bytes and the
// regexp methods whose answer is a test of the text: a call to one on
// words decides on them.
var textTests = map[string]bool{
	"Contains": true, "ContainsAny": true, "ContainsRune": true, "ContainsFunc": true,
	"HasPrefix": true, "HasSuffix": true, "EqualFold": true,
	"Cut": true, "CutPrefix": true, "CutSuffix": true,
	"Match": true, "MatchString": true, "FindString": true, "FindStringIndex": true,
	"FindStringSubmatch": true, "FindStringSubmatchIndex": true, "FindAllString": true,
}

// textPositions are the functions that find a place in text: compared
// (strings.Index(msg, "127") >= 0) they decide on it; used to cut words
// for a person (msg[strings.LastIndex(msg, ": ")+2:]) they do not.
var textPositions = map[string]bool{
	"Index": true, "IndexAny": true, "IndexByte": true, "IndexRune": true, "IndexFunc": true,
	"LastIndex": true, "LastIndexAny": true, "LastIndexByte": true, "LastIndexFunc": true,
	"Count": true, "Compare": true,
}

// reshapers are the packages whose functions make words into other words
// (strings.ToLower(err.Error()), fmt.Sprint(err.Error())).
var reshapers = map[string]bool{"strings": true, "bytes": true, "fmt": true}

// ErrorTextDecisions are the decisions on words (Decision) in every
// non-test Go file under root but the paths skip names, as Literals walks.
func ErrorTextDecisions(t testing.TB, root string, skip ...string) []Decision {
	t.Helper()
	var out []Decision
	walkSource(t, root, skip, 0, func(fset *token.FileSet, f *ast.File) {
		out = append(out, fileDecisions(fset, f)...)
	})
	return out
}

// fileDecisions are f's decisions on words, function by function: a
// variable a function sets from an error's text is that text too (msg :=
// err.Error(); strings.Contains(msg, ...)).
func fileDecisions(fset *token.FileSet, f *ast.File) []Decision {
	var out []Decision
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
			out = append(out, funcDecisions(fset, fn.Body)...)
		}
	}
	return out
}

func funcDecisions(fset *token.FileSet, body *ast.BlockStmt) []Decision {
	w := words{vars: map[string]bool{}}
	// Two passes: the variables first, wherever the function sets them.
	ast.Inspect(body, w.collect)
	var out []Decision
	ast.Inspect(body, func(n ast.Node) bool {
		if e := w.decision(n); e != nil {
			var b strings.Builder
			_ = printer.Fprint(&b, fset, e)
			out = append(out, Decision{Pos: fset.Position(e.Pos()), Expr: b.String()})
		}
		return true
	})
	return out
}

// words knows which expressions of one function are words for a person.
type words struct {
	vars map[string]bool // local variables set from such words
}

func (w words) collect(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.AssignStmt:
		for i, lhs := range n.Lhs {
			if id, ok := lhs.(*ast.Ident); ok && len(n.Lhs) == len(n.Rhs) && w.is(n.Rhs[i]) {
				w.vars[id.Name] = true
			}
		}
	case *ast.ValueSpec:
		for i, id := range n.Names {
			if len(n.Names) == len(n.Values) && w.is(n.Values[i]) {
				w.vars[id.Name] = true
			}
		}
	}
	return true
}

// is says e is words: an X.Error() call, an X.Detail, a variable set from
// one, a part of one (msg[i:]) or one reshaped by strings, bytes or fmt.
func (w words) is(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return w.is(e.X)
	case *ast.SliceExpr:
		return w.is(e.X)
	case *ast.Ident:
		return w.vars[e.Name]
	case *ast.SelectorExpr:
		return e.Sel.Name == "Detail"
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if sel.Sel.Name == "Error" && len(e.Args) == 0 {
			return true
		}
		if pkg, ok := sel.X.(*ast.Ident); ok && reshapers[pkg.Name] {
			return slices.ContainsFunc(e.Args, w.is)
		}
	}
	return false
}

// decision is the expression of n that decides on words, or nil: a text
// test called on them, a place found in them and compared, a comparison
// with them (but with "": whether there are words at all is no reading of
// them), a switch on them.
func (w words) decision(n ast.Node) ast.Expr {
	switch n := n.(type) {
	case *ast.CallExpr:
		if w.calls(n, textTests) {
			return n
		}
	case *ast.BinaryExpr:
		switch n.Op {
		case token.EQL, token.NEQ:
			if w.is(n.X) && !empty(n.Y) || w.is(n.Y) && !empty(n.X) {
				return n
			}
			fallthrough
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
			for _, side := range []ast.Expr{n.X, n.Y} {
				if c, ok := side.(*ast.CallExpr); ok && w.calls(c, textPositions) {
					return n
				}
			}
		}
	case *ast.SwitchStmt:
		if n.Tag != nil && w.is(n.Tag) {
			return n.Tag
		}
	}
	return nil
}

// calls says c calls one of funcs with words among its arguments.
func (w words) calls(c *ast.CallExpr, funcs map[string]bool) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && funcs[sel.Sel.Name] && slices.ContainsFunc(c.Args, w.is)
}

// empty says e is the empty string literal.
func empty(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && (lit.Value == `""` || lit.Value == "``")
}
