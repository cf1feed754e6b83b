package loadgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// decodeChunk is what json.Unmarshal makes of data for a fresh chunk,
// without its reflection and without allocating: every response and
// every stream event is one, so it is the client's hottest decoding. It
// reads any JSON, keeps only chunk's fields (their names matched without
// case, the last of a repeated one winning, as encoding/json does) and
// refuses what encoding/json refuses; its texts are read in place (type
// text), and c's choices' room is reused. FuzzDecodeChunk holds it to
// encoding/json.
func decodeChunk(data []byte, c *chunk) error {
	*c = chunk{Choices: c.Choices[:0]}
	s := jsonScanner{data: data}
	s.ws()
	if s.literal("null") {
		return s.end()
	}
	if err := s.object(func(key []byte) error { return s.chunkField(key, c) }); err != nil {
		return err
	}
	return s.end()
}

var errJSON = errors.New("invalid JSON")

// maxDepth bounds nesting, as encoding/json does (10000).
const maxDepth = 10000

type jsonScanner struct {
	data  []byte
	i     int
	depth int
	// high says the last string read had a byte past ASCII; keyASCII
	// says the key a field is called with is all ASCII and unescaped.
	high, keyASCII bool
}

// The names each object of a chunk has, lower-case.
var (
	chunkNames   = []string{"choices", "usage", "error"}
	usageNames   = []string{"prompt_tokens", "completion_tokens"}
	choiceNames  = []string{"text", "message", "delta"}
	contentNames = []string{"content"}
)

// name is the name of names key matches, the way encoding/json matches
// a field's name, without case; "" when it matches none. A key all ASCII
// and unescaped is compared only with the names of its length, a byte at
// a time with its letters lower-cased (names are lower-case): most keys
// of a response match none, and lower-casing each one first, or
// bytes.EqualFold on every key against every name, was a twentieth of
// the client's work a request. Only a key past ASCII or escaped needs
// Unicode's folding (U+017F folds to s, U+212A to k: a key of another
// length may match).
func (s *jsonScanner) name(key []byte, names []string) string {
	if !s.keyASCII {
		for _, n := range names {
			if bytes.EqualFold(key, []byte(n)) {
				return n
			}
		}
		return ""
	}
	for _, n := range names {
		// Most servers send the names as they are: equal bytes are one
		// comparison, not a fold a byte.
		if len(n) == len(key) && (string(key) == n || asciiLowerEqual(key, n)) {
			return n
		}
	}
	return ""
}

// asciiLowerEqual says whether key, its ASCII letters lower-cased, is n
// (of key's length).
func asciiLowerEqual(key []byte, n string) bool {
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != n[i] {
			return false
		}
	}
	return true
}

func (s *jsonScanner) ws() {
	for s.i < len(s.data) {
		// Most bytes looked at are no space (a response is most often
		// compact): one comparison says so.
		if c := s.data[s.i]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return
		}
		s.i++
	}
}

func (s *jsonScanner) end() error {
	s.ws()
	if s.i != len(s.data) {
		return errJSON
	}
	return nil
}

func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

func (s *jsonScanner) literal(lit string) bool {
	// Its first byte first: most values looked at for a null are none.
	if s.i < len(s.data) && s.data[s.i] == lit[0] && bytes.HasPrefix(s.data[s.i:], []byte(lit)) {
		s.i += len(lit)
		return true
	}
	return false
}

// object reads an object, calling field at each key with the scanner at
// its value, which field must read.
func (s *jsonScanner) object(field func(key []byte) error) error {
	if s.peek() != '{' {
		return errJSON
	}
	if s.depth++; s.depth > maxDepth {
		return errJSON
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		if s.peek() != '"' {
			return errJSON
		}
		key, esc, err := s.rawString()
		if err != nil {
			return err
		}
		if esc {
			var k string
			if json.Unmarshal(s.data[s.i-len(key)-2:s.i], &k) != nil {
				return errJSON
			}
			key = []byte(k)
		}
		if s.peek() != ':' {
			return errJSON
		}
		s.i++
		s.ws()
		s.keyASCII = !esc && !s.high
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return nil
		default:
			return errJSON
		}
	}
}

// array reads an array, calling elem with the scanner at each element.
func (s *jsonScanner) array(elem func() error) error {
	if s.peek() != '[' {
		return errJSON
	}
	if s.depth++; s.depth > maxDepth {
		return errJSON
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		s.depth--
		return nil
	}
	for {
		s.ws()
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return nil
		default:
			return errJSON
		}
	}
}

// str reads a string value in place (null leaves dst as it is, as
// encoding/json leaves a string).
func (s *jsonScanner) str(dst *text) error {
	if s.literal("null") {
		return nil
	}
	if s.peek() != '"' {
		return errJSON
	}
	raw, esc, err := s.rawString()
	if err != nil {
		return err
	}
	*dst = text{raw: raw, esc: esc}
	return nil
}

// number reads a JSON number and returns its text.
func (s *jsonScanner) number() ([]byte, error) {
	from, d := s.i, s.data
	i := s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return nil, errJSON
	}
	if i < len(d) && d[i] == '.' {
		if i++; i >= len(d) || d[i] < '0' || d[i] > '9' {
			return nil, errJSON
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return nil, errJSON
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.i = i
	return d[from:i], nil
}

// skip reads any value.
func (s *jsonScanner) skip() error {
	switch s.peek() {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(s.skip)
	case '"':
		_, _, err := s.rawString()
		return err
	case 't':
		return s.must("true")
	case 'f':
		return s.must("false")
	case 'n':
		return s.must("null")
	}
	_, err := s.number()
	return err
}

func (s *jsonScanner) must(lit string) error {
	if !s.literal(lit) {
		return errJSON
	}
	return nil
}

// count reads an int into *dst, has saying it was given (null: not), as
// encoding/json decodes a *int.
func (s *jsonScanner) count(dst *int, has *bool) error {
	if s.literal("null") {
		*dst, *has = 0, false
		return nil
	}
	digits, err := s.number()
	if err != nil {
		return err
	}
	if n, ok := smallCount(digits); ok {
		*dst, *has = n, true
		return nil
	}
	n, err := strconv.ParseInt(string(digits), 10, strconv.IntSize)
	if err != nil {
		return err // a fraction, an exponent, or out of range: encoding/json refuses it too
	}
	*dst, *has = int(n), true
	return nil
}

// smallDigits is how many decimal digits no int overflows: 18 of 64 bits,
// 9 of 32.
const smallDigits = 9 + 9*(strconv.IntSize/64)

// smallCount is a JSON number of at most smallDigits digits and nothing
// else (no sign, fraction or exponent): every token count
// a server sends, read without strconv's general parse (a twentieth of
// the client's work to take an answer). ok false leaves the number to
// strconv.
func smallCount(digits []byte) (n int, ok bool) {
	if len(digits) == 0 || len(digits) > smallDigits {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return n, true
}

func (s *jsonScanner) chunkField(key []byte, c *chunk) error {
	switch s.name(key, chunkNames) {
	case "choices":
		if s.literal("null") {
			c.Choices = nil
			return nil
		}
		// A repeated choices decodes into the elements already there, as
		// encoding/json does.
		n := 0
		err := s.array(func() error {
			if n == len(c.Choices) {
				c.Choices = append(c.Choices, choice{})
			}
			n++
			return s.choice(&c.Choices[n-1])
		})
		if c.Choices == nil && err == nil {
			c.Choices = []choice{} // [] is an empty slice, not none
		}
		c.Choices = c.Choices[:n]
		return err
	case "usage":
		if s.literal("null") {
			c.Usage, c.hasUsage = usage{}, false
			return nil
		}
		if !c.hasUsage {
			c.Usage, c.hasUsage = usage{}, true
		}
		u := &c.Usage
		return s.object(func(k []byte) error {
			switch s.name(k, usageNames) {
			case "prompt_tokens":
				return s.count(&u.prompt, &u.hasPrompt)
			case "completion_tokens":
				return s.count(&u.completion, &u.hasCompletion)
			}
			return s.skip()
		})
	case "error":
		from := s.i
		if err := s.skip(); err != nil {
			return err
		}
		c.Error = json.RawMessage(bytes.Clone(s.data[from:s.i]))
		return nil
	}
	return s.skip()
}

// choice reads one of choices (null leaves it as it is).
func (s *jsonScanner) choice(ch *choice) error {
	if s.literal("null") {
		return nil
	}
	return s.object(func(k []byte) error {
		switch s.name(k, choiceNames) {
		case "text":
			return s.str(&ch.Text)
		case "message":
			return s.content(&ch.Message)
		case "delta":
			return s.content(&ch.Delta)
		}
		return s.skip()
	})
}

// content reads a message or delta object's content.
func (s *jsonScanner) content(dst *text) error {
	if s.literal("null") {
		return nil
	}
	return s.object(func(k []byte) error {
		if s.name(k, contentNames) == "content" {
			return s.str(dst)
		}
		return s.skip()
	})
}
