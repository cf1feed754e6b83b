package digest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The fields of an object line that hold the prompt, when no field is named.
const (
	FieldTokens = "prompt_token_ids"
	FieldText   = "prompt"
)

// parseLine decodes one line of a prompts file into the body bytes of the
// specification, appended to body. Blank lines give UnitNone. On error msg
// says what is wrong with the line; the caller adds file and line.
func parseLine(line []byte, field string, body []byte) (unit Unit, out []byte, msg string) {
	i := skipWS(line, 0)
	if i == len(line) {
		return UnitNone, body, ""
	}
	var end int
	switch line[i] {
	case '[':
		out, end, msg = parseTokenArray(line, i, body)
		unit = UnitTokens
	case '"':
		out, end, msg = parseString(line, i, body)
		unit = UnitText
	case '{':
		return parseObject(line[i:], field, body)
	default:
		return UnitNone, body, "malformed JSON: a line must be an array of token IDs, a string, or an object with " + FieldTokens + " or " + FieldText
	}
	if msg != "" {
		return UnitNone, body, msg
	}
	if j := skipWS(line, end); j != len(line) {
		return UnitNone, body, fmt.Sprintf("malformed JSON: unexpected %q after the prompt", truncate(line[j:]))
	}
	return unit, out, ""
}

func parseObject(line []byte, field string, body []byte) (Unit, []byte, string) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return UnitNone, body, "malformed JSON: " + err.Error()
	}
	names := []string{FieldTokens, FieldText}
	if field != "" {
		names = []string{field}
	}
	for _, name := range names {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		return parseValue(raw, name, body)
	}
	if field != "" {
		return UnitNone, body, fmt.Sprintf("object has no field %q, the one named to hold the prompt", field)
	}
	return UnitNone, body, fmt.Sprintf("object has neither %q nor %q (name the field that holds the prompt)", FieldTokens, FieldText)
}

func parseValue(raw []byte, name string, body []byte) (Unit, []byte, string) {
	i := skipWS(raw, 0)
	var (
		out  []byte
		msg  string
		unit Unit
	)
	switch {
	case i < len(raw) && raw[i] == '[':
		out, _, msg = parseTokenArray(raw, i, body)
		unit = UnitTokens
	case i < len(raw) && raw[i] == '"':
		out, _, msg = parseString(raw, i, body)
		unit = UnitText
	default:
		return UnitNone, body, fmt.Sprintf("field %q is neither an array of token IDs nor a string", name)
	}
	if msg != "" {
		return UnitNone, body, fmt.Sprintf("field %q: %s", name, msg)
	}
	return unit, out, ""
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseTokenArray parses the array starting at b[i] == '[' and appends each
// token as 4 bytes big-endian. It is the hot loop of ReadFile.
func parseTokenArray(b []byte, i int, body []byte) ([]byte, int, string) {
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return body, i + 1, ""
	}
	for idx := 0; ; idx++ {
		i = skipWS(b, i)
		if i >= len(b) {
			return body, i, "malformed JSON: unterminated array"
		}
		c := b[i]
		if isDigit(c) {
			v := uint64(c - '0')
			j := i + 1
			if c == '0' && j < len(b) && isDigit(b[j]) {
				return body, j, fmt.Sprintf("malformed JSON: token %d: leading zero in %s", idx, numberText(b, i))
			}
			for j < len(b) && isDigit(b[j]) {
				v = v*10 + uint64(b[j]-'0')
				if v >= 1<<32 {
					return body, j, fmt.Sprintf("token %d: %s is at least 2^32 (token IDs are 0 <= t < 2^32)", idx, numberText(b, i))
				}
				j++
			}
			if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
				return body, j, fmt.Sprintf("token %d: %s is not an integer", idx, numberText(b, i))
			}
			body = append(body, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
			i = j
		} else {
			return body, i, fmt.Sprintf("token %d: %s", idx, notAToken(b, i))
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return body, i, "malformed JSON: unterminated array"
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return body, i + 1, ""
		default:
			return body, i, fmt.Sprintf("malformed JSON: expected ',' or ']' after token %d, found %q", idx, truncate(b[i:]))
		}
	}
}

// notAToken says why the value at b[i] is not a token ID.
func notAToken(b []byte, i int) string {
	switch c := b[i]; {
	case c == '-':
		if j := i + 1; j < len(b) && isDigit(b[j]) {
			return numberText(b, i) + " is negative (token IDs are 0 <= t < 2^32)"
		}
	case c == 't' || c == 'f':
		return "a boolean is not a token ID"
	case c == 'n':
		return "null is not a token ID"
	case c == '"':
		return "a string is not a token ID"
	case c == '[' || c == '{':
		return "a nested array or object is not a token ID"
	}
	return fmt.Sprintf("malformed JSON: unexpected %q", truncate(b[i:]))
}

func numberText(b []byte, i int) string {
	j := i
	for j < len(b) && (isDigit(b[j]) || b[j] == '-' || b[j] == '+' || b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		j++
	}
	return string(truncate(b[i:j]))
}

func truncate(b []byte) []byte {
	if len(b) > 24 {
		return b[:24]
	}
	return b
}

// parseString decodes the JSON string starting at b[i] == '"' and appends its
// UTF-8 bytes. Invalid UTF-8 and lone surrogate escapes are errors: the
// specification hashes exact UTF-8, and neither can be written in it.
func parseString(b []byte, i int, body []byte) ([]byte, int, string) {
	i++
	start := i
	// Fast path: no escapes.
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	if i < len(b) && b[i] == '"' {
		if !utf8.Valid(b[start:i]) {
			return body, i, "prompt text is not valid UTF-8"
		}
		return append(body, b[start:i]...), i + 1, ""
	}
	body = append(body, b[start:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			if !utf8.Valid(body) {
				return body, i, "prompt text is not valid UTF-8"
			}
			return body, i + 1, ""
		case c < 0x20:
			return body, i, "malformed JSON: control character in string"
		case c != '\\':
			body = append(body, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			break
		}
		var msg string
		if body, i, msg = parseEscape(b, i, body); msg != "" {
			return body, i, msg
		}
	}
	return body, i, "malformed JSON: unterminated string"
}

// parseEscape decodes the escape at b[i] == '\\' (its next byte exists)
// and appends its UTF-8 bytes; a surrogate pair is one escape.
func parseEscape(b []byte, i int, body []byte) ([]byte, int, string) {
	esc := b[i+1]
	i += 2
	switch esc {
	case '"', '\\', '/':
		body = append(body, esc)
	case 'b':
		body = append(body, '\b')
	case 'f':
		body = append(body, '\f')
	case 'n':
		body = append(body, '\n')
	case 'r':
		body = append(body, '\r')
	case 't':
		body = append(body, '\t')
	case 'u':
		r, ok := hex4(b, i)
		if !ok {
			return body, i, "malformed JSON: bad \\u escape"
		}
		i += 4
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(0), false
			if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				r2, ok2 = hex4(b, i+2)
			}
			dec := utf16.DecodeRune(r, r2)
			if !ok2 || dec == utf8.RuneError {
				return body, i, fmt.Sprintf("lone surrogate \\u%04x in prompt text cannot be encoded as UTF-8", r)
			}
			i += 6
			r = dec
		}
		body = utf8.AppendRune(body, r)
	default:
		return body, i, fmt.Sprintf("malformed JSON: bad escape \\%c", esc)
	}
	return body, i, ""
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}
