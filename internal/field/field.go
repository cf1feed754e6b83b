// Package field says what is wrong with one field of a library's
// configuration (campaign.Config, compare.Options) in words that name the
// field and no flag: a library is not its command line. The command that
// filled the configuration from its flags names them instead, when it
// reports the error (Error.Format).
package field

import "strings"

// Error is a configuration field that cannot be used.
type Error struct {
	Field string // the field at fault, as its struct spells it
	Value string // its value as given, formatted; "" for a switch or a pairing
	// With is a field given with Field that it conflicts with.
	With string
	// Needs are the settings of other fields that Field needs.
	Needs []Setting
	// Problem is what is wrong, in words that name no field.
	Problem string
}

// Setting is a field and a value it must hold.
type Setting struct{ Field, Value string }

// Name says a field and its value ("" when none is given) as a reader of
// the error knows them.
type Name func(field, value string) string

// Error says e with the fields' own names.
func (e *Error) Error() string { return e.Format(nil) }

// Format says e with every field and its value said by name (nil: the
// field's own name, then its value).
func (e *Error) Format(name Name) string {
	if name == nil {
		name = func(f, v string) string { return strings.TrimSpace(f + " " + v) }
	}
	var b strings.Builder
	b.WriteString(name(e.Field, e.Value))
	if e.With != "" {
		b.WriteString(" and " + name(e.With, ""))
	}
	b.WriteString(":")
	if len(e.Needs) > 0 {
		needs := make([]string, len(e.Needs))
		for i, s := range e.Needs {
			needs[i] = name(s.Field, s.Value)
		}
		b.WriteString(" needs " + strings.Join(needs, " and "))
	}
	if e.Problem != "" {
		b.WriteString(" " + e.Problem)
	}
	return b.String()
}
