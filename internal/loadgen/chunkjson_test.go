package loadgen

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdChunk is chunk as encoding/json decodes it, the judge of decodeChunk.
type stdChunk struct {
	Choices []stdChoice `json:"choices"`
	Usage   *struct {
		PromptTokens     *int `json:"prompt_tokens"`
		CompletionTokens *int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type stdChoice struct {
	Text    string `json:"text"`
	Message struct {
		Content string `json:"content"`
	} `json:"message"`
	Delta struct {
		Content string `json:"content"`
	} `json:"delta"`
}

// std is c in stdChunk's shape: its texts decoded, its usage's counts
// pointers.
func (c *chunk) std() stdChunk {
	s := stdChunk{Error: c.Error}
	if c.Choices != nil {
		s.Choices = make([]stdChoice, len(c.Choices))
	}
	for i, ch := range c.Choices {
		s.Choices[i].Text, s.Choices[i].Message.Content, s.Choices[i].Delta.Content = ch.Text.String(), ch.Message.String(), ch.Delta.String()
	}
	if c.hasUsage {
		s.Usage = &struct {
			PromptTokens     *int `json:"prompt_tokens"`
			CompletionTokens *int `json:"completion_tokens"`
		}{}
		if c.Usage.hasPrompt {
			s.Usage.PromptTokens = &c.Usage.prompt
		}
		if c.Usage.hasCompletion {
			s.Usage.CompletionTokens = &c.Usage.completion
		}
	}
	return s
}

// content is the content encoding/json decoded, joined.
func (s stdChunk) content(e Endpoint) string {
	var b strings.Builder
	for _, ch := range s.Choices {
		if e == Chat {
			b.WriteString(ch.Message.Content + ch.Delta.Content)
		} else {
			b.WriteString(ch.Text)
		}
	}
	return b.String()
}

// FuzzDecodeChunk: decodeChunk is json.Unmarshal into a chunk, for every
// input: the same refusals, the same fields, and its texts, read in
// place, have the words of the strings encoding/json makes of them.
func FuzzDecodeChunk(f *testing.F) {
	for _, seed := range []string{
		`{"choices": [{"text": "a b"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}`,
		`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"logprobs":null,"finish_reason":null}]}`,
		`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":24,"total_tokens":31}}`,
		`{"error": {"message": "bad \u0022key\u0022", "code": 401}}`,
		`{"error": "overloaded"}`, `{"Choices": [{"TEXT": "x"}], "usage": null}`, `null`, `[]`, `{"choices": null}`,
		`{"choices": [null, {"message": {"content": "\ud83d\ude00 \/"}}]}`, `{"usage": {"prompt_tokens": 1.5}}`,
		`{"usage": {"prompt_tokens": 1e2}}`, `{"usage": {"prompt_tokens": -0}}`, `{"usage": {"prompt_tokens": 99999999999999999999}}`,
		`{"choices": [{"text": "a"}], "choices": [{"delta": {"content": "b"}}]}`, `{"usage": {"prompt_tokens": 1}, "usage": {"completion_tokens": 2}}`,
		`{"usage": {"prompt_tokens": 1, "prompt_tokens": null}}`, `{"a": [1, 2.5e-3, true, false, null, {"b": "c"}], "choices": []}`,
		"{\"choices\": [{\"text\": \"\xff\"}]}", `{"choices": [{"text": 5}]}`, `{"x": 01}`, `{"x": -}`, `{"x": 1.}`, `{"x": "\u00"}`,
		`{"x": "a\tb"}`, `{"choices": [{"text": "a\nb\u00a0c\u2028d\/e \ud83d\ude00f\ud800 g\u0020h\"\\"}]}`,
		`{"choices": [{"text": "a "}, {"text": "b"}, {"message": {"content": "c"}, "delta": {"content": " d"}}]}`, "{\"choices\": [{\"text\": \"\xff \xc3\"}]}", ` { } `, `{`, `{"a" 1}`, `{"a": 1,}`, `{"text": "x"} x`, `"s"`, `5`,
		// Keys past ASCII and escaped keys, folded as encoding/json folds them (U+017F is s).
		`{"choiceſ": [{"te\u0078t": "a"}], "uſage": {"prompt_tokens": 2}}`, `{"\u0063hoices": [{"Text": "b"}], "USAGE": {"PROMPT_TOKENS": 1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast chunk
		var std stdChunk
		errFast, errStd := decodeChunk(data, &fast), json.Unmarshal(data, &std)
		if (errFast == nil) != (errStd == nil) {
			t.Fatalf("%q: decodeChunk says %v, encoding/json %v", data, errFast, errStd)
		}
		if errStd != nil {
			return
		}
		if got := fast.std(); !reflect.DeepEqual(got, std) {
			t.Fatalf("%q: decodeChunk gives %+v, encoding/json %+v", data, got, std)
		}
		for _, e := range []Endpoint{Completions, Chat} {
			if got, want := fast.words(e), countWords(std.content(e)); got != want {
				t.Fatalf("%q: %d words read in place, %d in what encoding/json decodes", data, got, want)
			}
			if got, want := fast.hasContent(e), std.content(e) != ""; got != want {
				t.Fatalf("%q: content %v read in place, %v decoded", data, got, want)
			}
		}
	})
}

// Words are counted as strings.Fields counts them (unicode.IsSpace
// between them), whatever bytes a text holds: every ASCII byte, beside
// letters and beside characters past ASCII.
func TestWordsAreStringsFields(t *testing.T) {
	for c := range 128 {
		for _, s := range []string{string(rune(c)), "a" + string(rune(c)) + "b", "é" + string(rune(c)) + "\u00a0x", string(rune(c)) + string(rune(c))} {
			var w words
			w.add(text{raw: []byte(s)})
			if want := len(strings.Fields(s)); w.n != want {
				t.Errorf("%q: %d words, strings.Fields %d", s, w.n, want)
			}
		}
	}
}

// A token count of any size is read as encoding/json reads it into an
// int: the short path for small counts, strconv for the rest (a sign, a
// fraction, an exponent, too many digits), refused where it is refused.
func TestCountIsEncodingJSONs(t *testing.T) {
	for _, n := range []string{"0", "7", "1000000", "999999999", "123456789012345678", "9223372036854775807", "9223372036854775808", "-1", "-0", "1.0", "1e3", "00", "1234567890123456789"} {
		var c chunk
		err := decodeChunk([]byte(`{"usage":{"completion_tokens":`+n+`}}`), &c)
		var ref struct {
			Usage struct {
				Completion *int `json:"completion_tokens"`
			} `json:"usage"`
		}
		refErr := json.Unmarshal([]byte(`{"usage":{"completion_tokens":`+n+`}}`), &ref)
		switch {
		case (err == nil) != (refErr == nil):
			t.Errorf("%s: error %v, encoding/json's %v", n, err, refErr)
		case err == nil && (!c.Usage.hasCompletion || c.Usage.completion != *ref.Usage.Completion):
			t.Errorf("%s: read %d (given %v), encoding/json %d", n, c.Usage.completion, c.Usage.hasCompletion, *ref.Usage.Completion)
		}
	}
}

// TestPlainRunFindsTheFirstMarkedByte: plainRun stops where a byte at a
// time through strByte stops, for every byte value at every place of a
// word and of the tail after the last whole word, behind plain bytes, a
// marked byte of each kind after it, and behind bytes whose subtraction
// borrows (so a wrongly set higher byte would be taken for the first).
func TestPlainRunFindsTheFirstMarkedByte(t *testing.T) {
	naive := func(d []byte, i int) int {
		for ; i < len(d) && !strByte[d[i]]; i++ {
		}
		return i
	}
	for n := range 20 {
		for at := range n {
			for b := range 256 {
				for _, after := range []byte{'a', '"', '\\', 0x1f, 0x80, 0x21, 0x5d, 0x23, 0x20} {
					d := bytes.Repeat([]byte("a"), n)
					d[at] = byte(b)
					for j := at + 1; j < n; j++ {
						d[j] = after
					}
					for from := 0; from <= at; from++ {
						if got, want := plainRun(d, from), naive(d, from); got != want {
							t.Fatalf("plainRun(%q, %d) = %d, want %d", d, from, got, want)
						}
					}
				}
			}
		}
	}
}
