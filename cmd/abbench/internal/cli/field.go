package cli

import (
	"errors"
	"strings"

	"github.com/abbench/abbench/internal/field"
)

// FieldFlags name a library configuration's fields by the flags that set
// them. A name with a space in it ("--max-pairs N") is said as it is, in
// place of the field and its value.
type FieldFlags map[string]string

// FieldUsage is err as a usage error with hint, a field.Error in it said
// with the flags that set its fields (a field flags does not name keeps
// its own name).
func FieldUsage(err error, flags FieldFlags, hint string) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return Usage(err, hint)
	}
	return Usage(errors.New(fe.Format(func(f, v string) string {
		name, ok := flags[f]
		switch {
		case !ok:
			name = f
		case strings.Contains(name, " "):
			return name
		}
		return strings.TrimSpace(name + " " + v)
	})), hint)
}
