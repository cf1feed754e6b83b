package scenarios

import (
	"fmt"
	"strings"
)

// Error is one problem in a scenario file, printed as FILE:LINE: message.
type Error struct {
	File string
	Line int
	Msg  string
	// Parse says the YAML itself was refused: a key the scenario has no
	// place for, a value of the wrong kind (yamlErrors). The scenario's
	// other errors name their own fix.
	Parse bool
}

// HasParse says whether any of es is a Parse error.
func (es Errors) HasParse() bool {
	for _, e := range es {
		if e.Parse {
			return true
		}
	}
	return false
}

func (e *Error) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Errors are every problem found in one scenario, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}
