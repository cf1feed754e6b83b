package digest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/abbench/abbench/internal/readonly"
)

// Prompt is one prompt of a prompts file as the specification hashes it:
// its body (token IDs as 4 bytes big-endian each, or the text's UTF-8
// bytes), so a client that sends Tokens or Text sends exactly what the
// file's digest covers.
type Prompt struct {
	Body []byte
	Unit Unit
	Line int // the prompt's line in its file
}

// Tokens decodes a token prompt's body. It panics on a text prompt.
func (p Prompt) Tokens() []uint32 {
	if p.Unit != UnitTokens {
		panic("digest: Tokens of a text prompt")
	}
	out := make([]uint32, len(p.Body)/4)
	for i := range out {
		out[i] = binary.BigEndian.Uint32(p.Body[4*i:])
	}
	return out
}

// Text is a text prompt's text. It panics on a token prompt.
func (p Prompt) Text() string {
	if p.Unit != UnitText {
		panic("digest: Text of a token prompt")
	}
	return string(p.Body)
}

// Record is the prompt's per-prompt record.
func (p Prompt) Record() Record { return RecordOf(p.Body) }

// ReadPromptsFile reads every prompt of the prompts file at path, in file
// order, with the rules and errors of ReadFile (field names the object
// field, as ReadOptions.Field does).
func ReadPromptsFile(path, field string) ([]Prompt, error) {
	return ReadPromptsFileN(path, field, 0)
}

// ReadPromptsFileN is ReadPromptsFile that stops after the first n
// prompts (n 0: every one): a client that sends n reads no further, so a
// large file costs what its first n prompts do.
func ReadPromptsFileN(path, field string, n int) ([]Prompt, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer readonly.Close(f)
	return ReadPromptsN(f, path, field, n)
}

// ReadPrompts is ReadPromptsFile of r; name is used in errors.
func ReadPrompts(r io.Reader, name, field string) ([]Prompt, error) {
	return ReadPromptsN(r, name, field, 0)
}

// ReadPromptsN is ReadPromptsFileN of r.
func ReadPromptsN(r io.Reader, name, field string, n int) ([]Prompt, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var (
		out      []Prompt
		unit     Unit
		unitLine int
	)
	for line := 1; ; line++ {
		text, readErr := br.ReadBytes('\n')
		if len(text) > 0 && text[len(text)-1] == '\n' {
			text = text[:len(text)-1]
		}
		u, body, msg := parseLine(text, field, nil)
		switch {
		case msg != "":
			return nil, &LineError{name, line, msg}
		case u == UnitNone:
		case unit == UnitNone:
			unit, unitLine = u, line
		case u != unit:
			return nil, mixErr(name, line, u, unit, unitLine)
		}
		if u != UnitNone {
			out = append(out, Prompt{Body: body, Unit: u, Line: line})
			if len(out) == n {
				return out, nil
			}
		}
		if readErr == io.EOF {
			return out, nil
		}
		if readErr != nil {
			return nil, fmt.Errorf("reading %s: %w", name, readErr)
		}
	}
}
