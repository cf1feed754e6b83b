package records

import (
	"slices"
	"testing"
)

// A format without a parser gives an invalid record saying so, not a
// record judged by the shared rules alone.
func TestUnknownFormatIsInvalid(t *testing.T) {
	r := Parse([]byte(`{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 1}`), "r.json", Spec{Format: "csv", Requested: 4, Metric: "output_throughput"})
	if r.Valid || !slices.Equal(r.Problems, []string{`unknown throughput record format "csv"`}) {
		t.Fatalf("valid %v, problems %q", r.Valid, r.Problems)
	}
}

func TestNotRead(t *testing.T) {
	r := NotRead("vllm", "out/r.json", "open out/r.json: no such file or directory")
	if r.Valid || r.File != "out/r.json" || r.Completed != -1 || !slices.Equal(r.Problems, []string{"no record: open out/r.json: no such file or directory"}) {
		t.Fatalf("%+v", r)
	}
}

func TestChooseNamesTheResults(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
		ok    bool
		at    int
		says  string
	}{
		{[]string{"a"}, "", true, 0, ""},
		{[]string{"a", "b"}, "b", true, 1, ""},
		{[]string{"a", "b"}, "", false, 0, `holds 2 results ("a", "b"): name this run's with throughput.result`},
		{[]string{"a", "b"}, "c", false, 0, `holds no result named "c" (it holds "a", "b")`},
		{nil, "", false, 0, "holds no result"},
		// Two results of one name (two hyperfine commands given the same
		// --command-name): neither is this run's.
		{[]string{"a", "b", "a"}, "a", false, 0, `holds 2 results named "a": which one is this run's is ambiguous`},
	} {
		r := newRecord("x", "f")
		at, ok := r.choose(c.names, c.want)
		if ok != c.ok || at != c.at || ok == r.Unreadable {
			t.Errorf("choose(%q, %q) = %d %v (unreadable %v), want %d %v", c.names, c.want, at, ok, r.Unreadable, c.at, c.ok)
		}
		if c.says != "" && (len(r.Problems) == 0 || r.Problems[0] != c.says) {
			t.Errorf("choose(%q, %q) says %q, want %q", c.names, c.want, r.Problems, c.says)
		}
	}
}
