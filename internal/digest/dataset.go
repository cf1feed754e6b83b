package digest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/abbench/abbench/internal/readonly"
)

// Form is the shape of a dataset file.
type Form string

// The forms a dataset file may take (docs/digest.md): a prompts file
// (JSON Lines, one prompt a line), ShareGPT's JSON (one array of
// conversations, the form of ShareGPT_V3_unfiltered_cleaned_split.json
// that vLLM's and SGLang's benchmarks read), and conversation JSON Lines
// (one conversation a line, OpenAI's chat messages).
const (
	FormPrompts       Form = "prompts"
	FormShareGPT      Form = "sharegpt"
	FormConversations Form = "conversations"
)

// sniffSize is how much of a file SniffForm is given: enough for the
// first line of any conversation a person would write, and bounded.
const sniffSize = 64 << 10

// SniffForm says which form a file is from its first bytes: a JSON array
// whose first element is an object is ShareGPT's (a prompts file's array
// line holds token IDs, never objects); a first line that is an object
// with messages or conversations is conversation JSON Lines; anything
// else is a prompts file, whose reader names what is wrong with it.
func SniffForm(head []byte) Form {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	i := skipWS(head, 0)
	if i < len(head) && head[i] == '[' {
		if j := skipWS(head, i+1); j < len(head) && head[j] == '{' {
			return FormShareGPT
		}
		return FormPrompts
	}
	if i == len(head) || head[i] != '{' {
		return FormPrompts
	}
	line, _, _ := bytes.Cut(head[i:], []byte("\n"))
	var keys map[string]json.RawMessage
	if json.Unmarshal(line, &keys) != nil {
		return FormPrompts
	}
	_, msgs := keys["messages"]
	_, convs := keys["conversations"]
	if msgs || convs {
		return FormConversations
	}
	return FormPrompts
}

// SniffFile is SniffForm of the file at path.
func SniffFile(path string) (Form, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer readonly.Close(f)
	head := make([]byte, sniffSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return SniffForm(head[:n]), nil
}

// Message is one turn of a conversation as a chat request carries it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// The roles a request's messages carry.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Request is one request a conversation dataset makes: its messages (the
// history the dataset holds, then a user turn) and its output length.
type Request struct {
	Messages []Message
	// MaxTokens is the output length: the words of the dataset's reply
	// to the last user turn (0 when the dataset has none: not sent).
	MaxTokens int
	// Entry is the conversation's line (conversation JSON Lines) or its
	// position in the array from 1 (ShareGPT); Turn the user turn, from 1.
	Entry, Turn int
}

// Body is the request's workload content as the text algorithm hashes it:
// the compact JSON object {"max_tokens":N,"messages":[{"role":R,"content":C},...]}
// (max_tokens left out when 0), keys in that order, no HTML escaping, no
// trailing newline. Its output length is in it, so a changed reply
// length is a changed workload.
func (q Request) Body() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// A struct of strings and ints always encodes.
	_ = enc.Encode(struct {
		MaxTokens int       `json:"max_tokens,omitempty"`
		Messages  []Message `json:"messages"`
	}{q.MaxTokens, q.Messages})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Prompt is the request as the digest builder takes it: its Body, text.
func (q Request) Prompt() Prompt { return Prompt{Body: q.Body(), Unit: UnitText, Line: q.Entry} }

// EntryError is an error in one conversation of a dataset file.
type EntryError struct {
	File  string
	Form  Form
	Entry int // a line (conversation JSON Lines) or a position from 1 (ShareGPT)
	Msg   string
}

func (e *EntryError) Error() string { return e.Where() + ": " + e.Msg }

// Where names the entry in its file: "FILE: conversation N" of a
// ShareGPT array, "FILE:N" of a file of lines.
func (e *EntryError) Where() string {
	if e.Form == FormShareGPT {
		return fmt.Sprintf("%s: conversation %d", e.File, e.Entry)
	}
	return fmt.Sprintf("%s:%d", e.File, e.Entry)
}

// turn is one turn as either form spells it: ShareGPT's from and value,
// or OpenAI's role and content.
type turn struct {
	From    string          `json:"from"`
	Value   json.RawMessage `json:"value"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// conversation is one entry: its turns under conversations (ShareGPT) or
// messages (OpenAI); either name is read in either form.
type conversation struct {
	Conversations []turn `json:"conversations"`
	Messages      []turn `json:"messages"`
}

// maxEntry bounds one conversation, in either form; a variable so tests
// can cross it cheaply.
var maxEntry = 64 << 20

// ReadConversations yields the requests of a conversation dataset (form
// ShareGPT or conversation JSON Lines) in file order: per conversation,
// its first user turn, or with multiTurn every user turn, each with the
// turns before it as history. A conversation with no user turn sends
// nothing. The first error ends the sequence.
func ReadConversations(r io.Reader, name string, form Form, multiTurn bool) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		entries := jsonLines
		if form == FormShareGPT {
			entries = jsonArray
		}
		for entry, raw := range entries(r, name) {
			if raw.err != nil {
				yield(Request{}, raw.err)
				return
			}
			msgs, err := decodeConversation(raw.data)
			if err != nil {
				yield(Request{}, &EntryError{name, form, entry, err.Error()})
				return
			}
			for _, q := range requestsOf(msgs, entry, multiTurn) {
				if !yield(q, nil) {
					return
				}
			}
		}
	}
}

type rawEntry struct {
	data []byte
	err  error
}

// jsonLines yields each non-blank line with its number.
func jsonLines(r io.Reader, name string) iter.Seq2[int, rawEntry] {
	return func(yield func(int, rawEntry) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 1<<20), maxEntry)
		line := 0
		for sc.Scan() {
			line++
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			if !yield(line, rawEntry{data: sc.Bytes()}) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(line+1, rawEntry{err: fmt.Errorf("%s: after line %d: %w (a conversation is at most %d MiB on one line)", name, line, err, maxEntry>>20)})
		}
	}
}

// capped is a reader that fails once more than maxEntry bytes past mark
// are read: the decoder holds a whole element, and one element is bounded.
type capped struct {
	r          io.Reader
	read, mark int64
}

// errEntryTooLarge is one conversation past maxEntry.
var errEntryTooLarge = errors.New("a conversation larger than the cap")

func (c *capped) Read(p []byte) (int, error) {
	if c.read-c.mark > int64(maxEntry) {
		return 0, errEntryTooLarge
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

// jsonArray yields each element of a JSON array with its position from 1.
func jsonArray(r io.Reader, name string) iter.Seq2[int, rawEntry] {
	return func(yield func(int, rawEntry) bool) {
		cr := &capped{r: bufio.NewReaderSize(r, 1<<20)}
		dec := json.NewDecoder(cr)
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			yield(0, rawEntry{err: fmt.Errorf("%s: a ShareGPT file is one JSON array of conversations (%v)", name, errOr(err, "it does not start with ["))})
			return
		}
		for i := 1; dec.More(); i++ {
			cr.mark = dec.InputOffset()
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, errEntryTooLarge) || err == nil && len(raw) > maxEntry {
				yield(i, rawEntry{err: &EntryError{name, FormShareGPT, i, fmt.Sprintf("a conversation of more than %d MiB", maxEntry>>20)}})
				return
			}
			if err != nil {
				yield(i, rawEntry{err: &EntryError{name, FormShareGPT, i, "malformed JSON: " + err.Error()}})
				return
			}
			if !yield(i, rawEntry{data: raw}) {
				return
			}
		}
		if _, err := dec.Token(); err != nil {
			yield(0, rawEntry{err: fmt.Errorf("%s: the array of conversations does not end: %w", name, err)})
		}
	}
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// decodeConversation reads one conversation's turns, each content parsed
// by the prompts file's string rules (invalid UTF-8 and lone surrogate
// escapes are errors: a request cannot carry them).
func decodeConversation(data []byte) ([]Message, error) {
	var c conversation
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("malformed JSON: %v (a conversation is an object with conversations: [{from, value}] or messages: [{role, content}])", err)
	}
	turns := c.Conversations
	if turns == nil {
		turns = c.Messages
	}
	if turns == nil {
		return nil, errors.New("an object with neither conversations nor messages")
	}
	out := make([]Message, len(turns))
	for i, t := range turns {
		role, err := roleOf(t)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		raw := t.Content
		if t.From != "" {
			raw = t.Value
		}
		j := skipWS(raw, 0)
		if j == len(raw) || raw[j] != '"' {
			return nil, fmt.Errorf("turn %d: its content is not a string (content parts, images and tool calls are not sent)", i+1)
		}
		body, _, msg := parseString(raw, j, nil)
		if msg != "" {
			return nil, fmt.Errorf("turn %d: %s", i+1, strings.Replace(msg, "prompt text", "content", 1))
		}
		out[i] = Message{Role: role, Content: string(body)}
	}
	return out, nil
}

// roleOf maps a turn's speaker to a chat role: ShareGPT's human and gpt
// (and the other assistants its dumps name), or OpenAI's roles.
func roleOf(t turn) (string, error) {
	who := t.Role
	if t.From != "" {
		who = t.From
	}
	switch strings.ToLower(who) {
	case "human", "user":
		return RoleUser, nil
	case "gpt", "assistant", "chatgpt", "bard", "bing", "model":
		return RoleAssistant, nil
	case "system":
		return RoleSystem, nil
	case "":
		return "", errors.New("no speaker: give from (human, gpt, system) or role (user, assistant, system)")
	}
	return "", fmt.Errorf("speaker %q: give human, gpt or system (ShareGPT), or user, assistant or system (OpenAI)", who)
}

// requestsOf is a conversation's requests: one per user turn (only the
// first without multiTurn), each carrying every turn before it, the
// dataset's own assistant replies among them, so what is sent is fixed
// by the dataset and never by a server's answers.
func requestsOf(msgs []Message, entry int, multiTurn bool) []Request {
	var out []Request
	for i, m := range msgs {
		if m.Role != RoleUser {
			continue
		}
		q := Request{Messages: msgs[: i+1 : i+1], Entry: entry, Turn: len(out) + 1}
		if i+1 < len(msgs) && msgs[i+1].Role == RoleAssistant {
			q.MaxTokens = len(strings.Fields(msgs[i+1].Content))
		}
		out = append(out, q)
		if !multiTurn {
			break
		}
	}
	return out
}

// ConversationsFile yields the requests of the conversation dataset at
// path (its form sniffed), in order, as ReadConversations does.
func ConversationsFile(path string, multiTurn bool) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		form, err := SniffFile(path)
		if err == nil && form == FormPrompts {
			err = fmt.Errorf("%s is a prompts file, not a conversation dataset", path)
		}
		if err != nil {
			yield(Request{}, err)
			return
		}
		f, err := os.Open(path)
		if err != nil {
			yield(Request{}, err)
			return
		}
		defer readonly.Close(f)
		for q, err := range ReadConversations(f, path, form, multiTurn) {
			if !yield(q, err) || err != nil {
				return
			}
		}
	}
}

// DigestConversations digests the requests of the conversation dataset
// at path with the text algorithm, each request's Body in order: the
// digest a client sending them records.
func DigestConversations(path string, multiTurn, keepRecords bool) (FileDigest, error) {
	b, err := NewBuilder(TextOrdered, keepRecords)
	if err != nil {
		return FileDigest{}, err
	}
	for q, err := range ConversationsFile(path, multiTurn) {
		if err != nil {
			return FileDigest{}, err
		}
		b.AddRecord(RecordOf(q.Body()))
	}
	d, err := b.Sum()
	if err != nil {
		return FileDigest{}, err
	}
	return FileDigest{Digest: d, Unit: UnitText, Records: b.Records()}, nil
}
