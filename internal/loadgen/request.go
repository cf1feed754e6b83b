package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/abbench/abbench/internal/digest"
)

// request is the body of one OpenAI completions or chat request.
type request struct {
	Model         string         `json:"model"`
	Prompt        any            `json:"prompt,omitempty"`
	Messages      []message      `json:"messages,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	IgnoreEOS     bool           `json:"ignore_eos,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// streamOptions asks for the usage chunk at the end of a stream.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// body is the request body that sends p: its token IDs or its text, as
// the prompts file holds them, so the record of p's body is the record of
// what the request carries.
func (o Options) body(p digest.Prompt) ([]byte, error) {
	req := request{Model: o.Model, MaxTokens: o.MaxTokens, Stream: o.Stream, IgnoreEOS: o.IgnoreEOS}
	if o.Stream {
		req.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	switch {
	case o.Endpoint == Chat:
		req.Messages = []message{{Role: "user", Content: p.Text()}}
	case p.Unit == digest.UnitTokens:
		req.Prompt = p.Tokens()
	default:
		req.Prompt = p.Text()
	}
	return json.Marshal(req)
}

// usage is the token counts a server reports, each with whether it was
// given (null or left out: not given). A value, not pointers: a usage
// read allocates nothing.
type usage struct {
	prompt, completion       int
	hasPrompt, hasCompletion bool
}

// chunk is a response, or one event of a streamed one: the fields of
// both endpoints that say what was generated, as decodeChunk reads them
// (FuzzDecodeChunk holds them to what encoding/json makes of the same
// bytes); its texts are valid while the bytes it was read from are.
type chunk struct {
	Choices []choice
	// Usage is the usage when hasUsage (a usage of null is none).
	Usage    usage
	hasUsage bool
	Error    json.RawMessage
}

// choice is one of a chunk's choices: the text of a completion, the
// message of a chat answer, the delta of a chat stream's event.
type choice struct {
	Text, Message, Delta text
}

// usage is the chunk's usage, nil when it has none.
func (c *chunk) usage() *usage {
	if !c.hasUsage {
		return nil
	}
	return &c.Usage
}

// words counts the words of the text the chunk carries (the choices'
// text for completions, their message and delta for chat) as countWords
// counts them in that text joined, without joining it.
func (c *chunk) words(e Endpoint) int {
	var w words
	for _, ch := range c.Choices {
		if e == Chat {
			w.add(ch.Message)
			w.add(ch.Delta)
		} else {
			w.add(ch.Text)
		}
	}
	return w.n
}

// hasContent says whether the chunk carries any content, without
// building it.
func (c *chunk) hasContent(e Endpoint) bool {
	for _, ch := range c.Choices {
		if (e == Chat && !(ch.Message.empty() && ch.Delta.empty())) || (e != Chat && !ch.Text.empty()) {
			return true
		}
	}
	return false
}

// errorText is what the server said went wrong, "" when nothing.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	return plainText(raw)
}

// plainText is a server's text as an error may quote it: JSON written
// again with no escapes but those JSON needs (a server may escape any
// character, \/ or \u0041, and a secret escaped is still a secret to
// redact), anything else as it came. Nothing is cut short here: a
// message is redacted whole, then cut (truncate).
func plainText(data []byte) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&v) != nil || d.More() {
		return string(data)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(data)
	}
	return strings.TrimSpace(b.String())
}

// truncate keeps an error text short enough for a record.
func truncate(s string) string {
	const max = 300
	s = strings.TrimSpace(s)
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// takeUsage takes the server's token counts; counted are this client's
// own, used for what the server did not report.
func (out *Outcome) takeUsage(u *usage, countedPrompt, countedOutput int) {
	out.PromptTokens, out.OutputTokens, out.TokensFrom = countedPrompt, countedOutput, FromCounted
	if u != nil && u.hasPrompt && u.hasCompletion {
		out.PromptTokens, out.OutputTokens, out.TokensFrom = u.prompt, u.completion, FromUsage
	}
}

// checkUsage holds a server's usage to what came: never more completion
// tokens than max_tokens (when sent), never fewer than the content events
// streamed (each carries a token at least), or, for a whole response,
// than 1 when there is content. A usage left out is not checked: the
// client counts what came instead.
func checkUsage(u *usage, maxTokens, atLeast int) error {
	if u == nil || !u.hasCompletion || !u.hasPrompt {
		return nil
	}
	completion, prompt := u.completion, u.prompt
	switch {
	case completion < 0 || prompt < 0:
		return &failure{KindResponse, fmt.Sprintf("the server's usage says %d prompt and %d completion tokens: a count is never negative", prompt, completion)}
	case maxTokens > 0 && completion > maxTokens:
		return &failure{KindOverMaxTokens, fmt.Sprintf("the server's usage says %d completion tokens, above max_tokens %d", completion, maxTokens)}
	case completion < atLeast:
		return &failure{KindUsageMismatch, fmt.Sprintf("the server's usage says %d completion tokens, but at least %d came", completion, atLeast)}
	}
	return nil
}

// Where an outcome's token counts come from.
const (
	FromUsage   = "usage"   // the server's usage
	FromCounted = "counted" // this client's count (see countPrompt)
)

// countPrompt is the prompt's length when the server gives no usage:
// its token IDs, or, for text, its words (an estimate: no tokenizer here).
func countPrompt(p digest.Prompt) int {
	if p.Unit == digest.UnitTokens {
		return len(p.Body) / 4
	}
	return countWords(p.Body)
}

// countWords is len(strings.Fields(string(text))), the words between
// Unicode spaces, counted without making them.
func countWords[T string | []byte](text T) int {
	n, in := 0, false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune([]byte(text[i:]))
		if text[i] < utf8.RuneSelf {
			r, size = rune(text[i]), 1
		}
		i += size
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// decodeResponse takes a whole (not streamed) response's outcome,
// decoding it into c, whose choices' room it reuses.
func decodeResponse(data []byte, c *chunk, o Options, p digest.Prompt, sent time.Time, out *Outcome) error {
	if err := decodeChunk(data, c); err != nil {
		return &failure{KindResponse, fmt.Sprintf("the response is not JSON: %v", err)}
	}
	if msg := errorText(c.Error); msg != "" {
		return &failure{KindServer, "the server reported an error: " + msg}
	}
	if len(c.Choices) == 0 {
		return &failure{KindResponse, "the response has no choices"}
	}
	atLeast := 0
	if c.hasContent(o.Endpoint) {
		atLeast = 1
	}
	if err := checkUsage(c.usage(), o.MaxTokens, atLeast); err != nil {
		return err
	}
	out.E2E = time.Since(sent)
	out.TTFT = out.E2E // without streaming, the first token arrives with the last
	out.takeUsage(c.usage(), countPrompt(p), c.words(o.Endpoint))
	return nil
}
