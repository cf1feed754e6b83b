package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/scenarios"
)

// Every error reaches the top with its status: a carried one as it is, a
// wrapped one through the wrapping, anything else as an error at work.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		hint string
	}{
		{&Error{Code: ExitCensored, Err: errors.New("censored"), Hint: "h"}, ExitCensored, "h"},
		{fmt.Errorf("reading: %w", Usage(errors.New("bad"), "fix it")), ExitUsage, "fix it"},
		// Words are no type: an unknown command or flag is a usage error
		// because the CLI says so (Usage), never by its message.
		{errors.New(`unknown flag: --nope`), ExitError, ""},
		{errors.New(`unknown command "x" in a rank's log`), ExitError, ""},
		{errors.New("disk full"), ExitError, ""},
		// A scenario's errors: a pointer to every key only where the YAML
		// itself was refused; the others name their own fix.
		{scenarios.Errors{{File: "s.yaml", Line: 3, Msg: `unknown key "arm" in scenario`, Parse: true}}, ExitUsage, "see docs/scenario.md for every key a scenario may hold and what it takes"},
		{scenarios.Errors{{File: "s.yaml", Line: 9, Msg: "prompts file p.jsonl does not exist"}}, ExitUsage, ""},
	} {
		if code, hint := Classify(c.err); code != c.code || hint != c.hint {
			t.Errorf("%v: exit %d, hint %q; want %d, %q", c.err, code, hint, c.code, c.hint)
		}
	}
}

// A field error is said with the flags that set its fields; a field no
// flag names keeps its name, and a phrase stands in for field and value.
func TestFieldUsage(t *testing.T) {
	flags := FieldFlags{"Repeat": "--repeat", "Until": "--max-pairs N"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&field.Error{Field: "Repeat", Value: "0", Problem: "must be at least 1"}, "--repeat 0: must be at least 1"},
		{&field.Error{Field: "Until", Value: "conclusive", Needs: []field.Setting{{Field: "Order", Value: "abba"}}}, "--max-pairs N: needs Order abba"},
		{errors.New("not a field error"), "not a field error"},
	} {
		err := FieldUsage(c.err, flags, "")
		if code, _ := Classify(err); code != ExitUsage || err.Error() != c.want {
			t.Errorf("%v: %q (exit %d), want %q (exit 2)", c.err, err, code, c.want)
		}
	}
}

func TestFormatCheck(t *testing.T) {
	f := Format{Value: "json", Choices: []string{"table", "json"}}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	f.Value = "yaml"
	if err := f.Check(); err == nil || !strings.Contains(err.Error(), `--format "yaml": choose one of table, json`) {
		t.Fatalf("--format yaml: %v", err)
	}
}
