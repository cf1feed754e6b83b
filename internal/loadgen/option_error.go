package loadgen

import (
	"fmt"
	"strings"
)

// OptionError is what is wrong with one option, named as abbench load's
// flag names it ("max-tokens"): a scenario's key is the same word with an
// underscore, so each caller can name the option as its user wrote it.
type OptionError struct {
	Option string // the flag's name, without its dashes
	Value  string // the value as given
	Want   string // what the option takes, or what is wrong with it
}

// Error names the option in words ("max tokens -1: ..."), for a reader
// who set it neither as a flag nor as a key.
func (e *OptionError) Error() string {
	return fmt.Sprintf("%s %s: %s", strings.ReplaceAll(e.Option, "-", " "), e.Value, e.Want)
}

// optionError is an OptionError of a value printed with %v (%g for
// numbers, as a duration prints itself).
func optionError(option string, value any, format string, args ...any) error {
	v := fmt.Sprint(value)
	if f, ok := value.(float64); ok {
		v = fmt.Sprintf("%g", f)
	}
	return &OptionError{Option: option, Value: v, Want: fmt.Sprintf(format, args...)}
}
