package scenarios

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/records"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/digest"
)

// TestApplyDefaults fills what a scenario leaves out and keeps what it
// sets.
func TestApplyDefaults(t *testing.T) {
	s := &Scenario{
		Arms:          map[string]Arm{"b": {}, "a": {}},
		Workload:      Workload{Prompts: "p.jsonl", Rounds: 2},
		Roles:         []Role{{Name: "srv"}, {Name: "cli", Ranks: 3, Log: "cli.log"}},
		Evidence:      Evidence{Throughput: &Throughput{File: "t.json"}},
		Deadlines:     Deadlines{Ready: Duration(5 * time.Second)},
		PromptsDigest: digest.Digest{Algorithm: "alg", Count: 5},
	}
	ApplyDefaults(s)
	w := s.Workload
	switch {
	case strings.Join(s.ArmOrder, ",") != "a,b":
		t.Errorf("arm order %v, want a,b (sorted: no file order)", s.ArmOrder)
	case w.Requests != 5 || w.Algorithm != "alg" || w.Concurrency != 1 || w.Rounds != 2:
		t.Errorf("workload %+v: want every prompt, the digest's algorithm, concurrency 1, rounds 2", w)
	case s.Roles[0].Ranks != 1 || s.Roles[0].Log != "srv-{{.Rank}}.log" || s.Roles[1].Ranks != 3 || s.Roles[1].Log != "cli.log":
		t.Errorf("roles %+v", s.Roles)
	case s.Evidence.Throughput.Metric != DefaultMetric:
		t.Errorf("metric %q, want %q", s.Evidence.Throughput.Metric, DefaultMetric)
	case s.Deadlines.Ready != Duration(5*time.Second) || s.Deadlines.Client != DefaultDeadlines.Client || s.Deadlines.KillGrace != DefaultDeadlines.KillGrace:
		t.Errorf("deadlines %+v", s.Deadlines)
	case s.NoiseThreshold != DefaultNoiseThreshold:
		t.Errorf("noise threshold %v, want DefaultNoiseThreshold", s.NoiseThreshold)
	}
	again := *s
	ApplyDefaults(&again)
	if !reflect.DeepEqual(&again, s) {
		t.Errorf("a second pass changed the scenario: %+v", again)
	}
}

// defaultName matches the names a default is given to: a variable, field,
// parameter, flag or function of the level or the smallest effect.
var defaultName = regexp.MustCompile(`(?i)alpha|effect|threshold`)

// defaultOwners are the declarations that spell the defaults, by package
// and name: the one place each is allowed.
var defaultOwners = map[string]bool{"decide.DefaultRule": true, "scenarios.DefaultMetric": true}

// literalCheck finds, in one file, the defaults spelled as literals.
type literalCheck struct {
	fset   *token.FileSet
	pkg    string
	params map[string][]string // "pkg.Func": its parameter names
	found  []string
}

func (c *literalCheck) report(n ast.Node, what string) {
	c.found = append(c.found, c.fset.Position(n.Pos()).String()+": "+what)
}

// number reports e when it is a numeric literal of a default (the level
// or the smallest effect) given to name.
func (c *literalCheck) number(e ast.Expr, name string) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || (lit.Kind != token.INT && lit.Kind != token.FLOAT) || !defaultName.MatchString(name) {
		return
	}
	v, err := strconv.ParseFloat(lit.Value, 64)
	if err != nil {
		return
	}
	if v == decide.DefaultRule.Alpha || v == decide.DefaultRule.Effect {
		c.report(lit, name+" = "+lit.Value+" (use decide.DefaultRule)")
	}
}

// lastName is the name an expression ends in: x, a.b.x, &a.x.
func lastName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.UnaryExpr:
		return lastName(e.X)
	case *ast.BasicLit:
		s, _ := strconv.Unquote(e.Value)
		return s
	}
	return ""
}

// call checks the arguments of a call: those given to a parameter named
// for a default (resolved by the module's own function declarations), and
// every argument of a call that names a default (a flag: "alpha").
func (c *literalCheck) call(call *ast.CallExpr) {
	key := c.pkg + "." + lastName(call.Fun)
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		key = lastName(sel.X) + "." + sel.Sel.Name
	}
	about := ""
	for _, a := range call.Args {
		if n := lastName(a); defaultName.MatchString(n) && !strings.Contains(n, " ") {
			about = n
		}
	}
	for i, a := range call.Args {
		if params := c.params[key]; i < len(params) {
			c.number(a, params[i])
		}
		if about != "" {
			c.number(a, about)
		}
	}
}

// metric reports a string literal of the default metric, except as one of
// a list or table of metric names (a record format's) or as the key a
// parser stores a value under.
func (c *literalCheck) metric(lit *ast.BasicLit, listed bool) {
	if s, err := strconv.Unquote(lit.Value); err == nil && s == DefaultMetric && !listed {
		c.report(lit, strconv.Quote(s)+" (use scenarios.DefaultMetric)")
	}
}

// listedNames are the string literals that stand among other names: the
// elements, keys and values of a composite literal of strings, and the
// index of an assigned map element.
func listedNames(f *ast.File) map[ast.Node]bool {
	listed := map[ast.Node]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if _, stringKey := kv.Key.(*ast.BasicLit); stringKey {
						listed[kv.Key], listed[kv.Value] = true, true
					}
				} else if len(n.Elts) > 1 {
					listed[e] = true
				}
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if ix, ok := l.(*ast.IndexExpr); ok {
					listed[ix.Index] = true
				}
			}
		}
		return true
	})
	return listed
}

// file checks one file's declarations, assignments, fields, calls and
// returns.
func (c *literalCheck) file(f *ast.File) {
	listed := listedNames(f)
	var fn string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			fn = n.Name.Name
		case *ast.ValueSpec:
			return c.spec(n)
		case *ast.AssignStmt:
			for i := range min(len(n.Lhs), len(n.Rhs)) {
				c.number(n.Rhs[i], lastName(n.Lhs[i]))
			}
		case *ast.KeyValueExpr:
			c.number(n.Value, lastName(n.Key))
		case *ast.CallExpr:
			c.call(n)
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				c.number(r, fn)
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				c.metric(n, listed[n])
			}
		}
		return true
	})
}

// spec checks a const or var declaration; the owners' own are skipped.
func (c *literalCheck) spec(vs *ast.ValueSpec) bool {
	for i, name := range vs.Names {
		if defaultOwners[c.pkg+"."+name.Name] {
			return false
		}
		if i < len(vs.Values) {
			c.number(vs.Values[i], name.Name)
		}
	}
	return true
}

// moduleFiles parses every non-test Go file of the module but the
// simulated server (cmd/disaggsim: the system under test, not abbench).
func moduleFiles(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	root, err := filepath.Abs("../..") // the module root: TestNoDefaultLiterals counts its files
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.IsDir() && (rel == "cmd/disaggsim" || rel == ".git" || rel == "testdata" || d.Name() == "testdata" || rel == "out" || rel == "bin"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// funcParams maps each package-level function of the files, "pkg.Func",
// to its parameter names.
func funcParams(files []*ast.File) map[string][]string {
	params := map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			var names []string
			for _, field := range fd.Type.Params.List {
				for _, n := range field.Names {
					names = append(names, n.Name)
				}
			}
			params[f.Name.Name+"."+fd.Name.Name] = names
		}
	}
	return params
}

// TestNoDefaultLiterals fails when a default is spelled outside its one
// place in non-test code: the level or the smallest effect of interest
// given as a number to a name of either (a variable, field, parameter,
// flag or function), or the default metric as a string anywhere but among
// other metric names. Docs and help text may state a default.
func TestNoDefaultLiterals(t *testing.T) {
	fset := token.NewFileSet()
	files := moduleFiles(t, fset)
	if len(files) < 50 {
		t.Fatalf("found only %d files in the module", len(files))
	}
	params := funcParams(files)
	for _, f := range files {
		c := &literalCheck{fset: fset, pkg: f.Name.Name, params: params}
		c.file(f)
		for _, found := range c.found {
			t.Errorf("default spelled outside its one place: %s", found)
		}
	}
}

// TestFormatHeadlinesReadTheirDirection: each record format's default
// headline improves the way MetricHigherIsBetter reads its name, so a
// scenario that names no metric and no direction compares it the right
// way; a format with a default and no row here fails.
func TestFormatHeadlinesReadTheirDirection(t *testing.T) {
	higher := map[string]bool{
		"mlperf": true, "k6": true, "pgbench": true, "sysbench": true,
		"hyperfine": false, "gobench": false, "pytest-benchmark": false,
		"fio": true, "nccl-tests": true, "wrk": true, "memtier": true, "redis-benchmark-csv": true,
		"aiperf": true, "genai-perf": true, "guidellm": true, "inference-perf": true, "llmperf": true, "llmperf-responses": true, "trtllm-bench": true,
	}
	for _, format := range records.Formats() {
		metric := records.DefaultMetric(format)
		if metric == "" {
			continue
		}
		want, ok := higher[format]
		if !ok {
			t.Errorf("%s: default headline %q has no row here saying which way it improves", format, metric)
			continue
		}
		if got := MetricHigherIsBetter(metric); got != want {
			t.Errorf("%s: default headline %q reads higher-is-better %v, want %v", format, metric, got, want)
		}
	}
	if records.DefaultMetric("regex") != "" {
		t.Error("regex has a default metric: its pattern names its own")
	}
}
