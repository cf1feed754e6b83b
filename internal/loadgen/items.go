package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/abbench/abbench/internal/digest"
)

// Item is one request of a workload: the content its digest record is of,
// and what else the request carries. Every prompt source (a prompts file,
// a conversation dataset, a synthetic workload) gives a sequence of them;
// the client sends request k with item k mod Requests.
type Item struct {
	// Prompt is what the sent digest records: a prompts file's prompt, a
	// synthetic workload's token IDs, or a conversation request's Body.
	Prompt digest.Prompt
	// Messages are a conversation request's messages (nil: the request
	// sends Prompt's tokens or text).
	Messages []digest.Message
	// MaxTokens is this request's max_tokens (0: Options.MaxTokens).
	MaxTokens int
	// Where names the request in its file for an error ("FILE:3", "FILE:
	// conversation 3"); "" for a request made from no file.
	Where string
}

// PromptItems are the items of a prompts file's prompts.
func PromptItems(prompts []digest.Prompt) []Item {
	out := make([]Item, len(prompts))
	for i, p := range prompts {
		out[i] = Item{Prompt: p}
	}
	return out
}

// ConversationItems are the items of a conversation dataset's requests.
func ConversationItems(reqs []digest.Request) []Item {
	out := make([]Item, len(reqs))
	for i, q := range reqs {
		out[i] = Item{Prompt: q.Prompt(), Messages: q.Messages, MaxTokens: q.MaxTokens}
	}
	return out
}

// Dataset is how a dataset file is read: its form is sniffed (a prompts
// file, ShareGPT JSON, or conversation JSON Lines).
type Dataset struct {
	Path string
	// Field names a prompts file's object field (prompts files only).
	Field string
	// MultiTurn sends every user turn of a conversation, not only the first.
	MultiTurn bool
	// Limit stops after the first Limit items (0: every one): a client
	// that sends Limit reads no further into a large dataset.
	Limit int
}

// ReadDataset reads every item of the dataset, in order. Errors name the
// file and the line or conversation.
func ReadDataset(d Dataset) ([]Item, error) {
	form, err := digest.SniffFile(d.Path)
	if err != nil {
		return nil, err
	}
	if form == digest.FormPrompts {
		if d.MultiTurn {
			return nil, fmt.Errorf("%s is a prompts file (one prompt a line): multi-turn needs a conversation dataset (ShareGPT JSON or conversation JSON Lines)", d.Path)
		}
		// Only the prompts sent are read: --requests 4 of a large file reads 4.
		prompts, err := digest.ReadPromptsFileN(d.Path, d.Field, d.Limit)
		return PromptItems(prompts), err
	}
	if d.Field != "" {
		return nil, fmt.Errorf("%s is a %s dataset: field names a prompts file's object field, leave it out", d.Path, form)
	}
	var out []Item
	for q, err := range digest.ConversationsFile(d.Path, d.MultiTurn) {
		if err != nil {
			return nil, err
		}
		it := ConversationItems([]digest.Request{q})[0]
		it.Where = (&digest.EntryError{File: d.Path, Form: form, Entry: q.Entry}).Where()
		out = append(out, it)
		if len(out) == d.Limit {
			break
		}
	}
	return out, nil
}

// DigestItems is the digest of items in order, with the unit's ordered
// algorithm (alg, when given, must hash that unit), with their records:
// what a client sending them once records.
func DigestItems(items []Item, alg digest.Algorithm) (digest.Digest, []digest.Record, error) {
	if len(items) == 0 {
		return digest.Digest{}, nil, errors.New("the workload holds no prompt")
	}
	if alg == "" {
		alg = digest.DefaultFor(items[0].Prompt.Unit)
	}
	if alg.Unit() != items[0].Prompt.Unit {
		return digest.Digest{}, nil, fmt.Errorf("algorithm %s hashes %s, the workload's prompts are %s", alg, alg.Unit(), items[0].Prompt.Unit)
	}
	b, err := digest.NewBuilder(alg, true)
	if err != nil {
		return digest.Digest{}, nil, err
	}
	for _, it := range items {
		b.AddRecord(it.Prompt.Record())
	}
	d, err := b.Sum()
	return d, b.Records(), err
}

// itemBody is the request body that sends it: a prompts file's or a
// synthetic prompt as body makes it, or a conversation request's
// messages (its one user message as the prompt on completions); its own
// output length, when it has one, is max_tokens.
func (o Options) itemBody(it Item) ([]byte, error) {
	if it.MaxTokens > 0 {
		o.MaxTokens = it.MaxTokens
	}
	if it.Messages == nil {
		return o.body(it.Prompt)
	}
	if o.Endpoint != Chat {
		if len(it.Messages) != 1 || it.Messages[0].Role != digest.RoleUser {
			return nil, fmt.Errorf("endpoint completions sends one prompt, the request carries %d messages: use endpoint chat", len(it.Messages))
		}
		return o.body(digest.Prompt{Body: []byte(it.Messages[0].Content), Unit: digest.UnitText, Line: it.Prompt.Line})
	}
	req := request{Model: o.Model, MaxTokens: o.MaxTokens, Stream: o.Stream, IgnoreEOS: o.IgnoreEOS, Messages: make([]message, len(it.Messages))}
	if o.Stream {
		req.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	for i, m := range it.Messages {
		req.Messages[i] = message{Role: m.Role, Content: m.Content}
	}
	return json.Marshal(req)
}
