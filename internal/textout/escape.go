package textout

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape makes text safe to show on a person's terminal: every control
// character but newline and tab (C0, DEL, C1), every byte that is not
// UTF-8, and the bidirectional overrides and isolates that reorder what
// is shown, are written as Go escapes (\x1b, \u009b, \u202e). What a rank
// or a tool writes (a mode line, a log line quoted in a reason, a record's
// name) reaches text reports through it, so an escape sequence in a log
// can neither drive the reader's terminal nor hide or reorder what the
// report says. JSON is not text for a person and is never escaped here.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + hex2(s[i]))
		case unsafeRune(r) && r < utf8.RuneSelf:
			b.WriteString(`\x` + hex2(byte(r)))
		case unsafeRune(r):
			b.WriteString(`\u` + strconv.FormatInt(int64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first character Escape changes, or -1.
// ASCII text (most of a report) is judged a byte at a time.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if unsafeRune(rune(c)) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune says whether Escape writes r as an escape.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional embeddings, overrides, isolates and marks
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// escaped formats a value as fmt would, then escapes the result: the
// format a report writes is abbench's own (a progress line's \r and \033[K
// included), its values are not.
type escaped struct{ v any }

func (e escaped) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, Escape(fmt.Sprintf(fmt.FormatString(f, verb), e.v))) // f keeps the first error: Writer reads it
}

// escapeArgs wraps every value that can hold text; numbers and booleans
// cannot, and stay as they are (a * width needs its int).
func escapeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
		if a == nil {
			continue
		}
		switch reflect.ValueOf(a).Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
			if _, stringer := a.(fmt.Stringer); !stringer {
				continue
			}
		}
		out[i] = escaped{a}
	}
	return out
}
