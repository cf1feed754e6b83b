package records

import (
	"errors"
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/digest"
)

// SentPrompts digests the prompts a benchmark client wrote down as what it
// sends: the inputs.json that AIPerf and GenAI-Perf write beside their
// export, {"data": [entry...]}, each entry's request payloads under
// "payloads" (AIPerf) or "payload" (GenAI-Perf), in the file's order. The
// prompt of a chat payload is the content of its one message, of a
// completions payload its prompt; each is hashed as text with the pinned
// digest.TextOrdered, so a client whose payloads hold the lines of a
// prompts file gives that file's digest.
//
// The file holds the client's dataset, not its requests in the order sent:
// the client cycles through the entries (AIPerf by its sampling strategy)
// for as many requests as it makes, so the count is of entries.
//
// A payload abbench cannot reduce to one text (a system prompt beside the
// user's, a turn of a conversation, an image, a format of another
// endpoint) is an error naming it: a digest of part of what was sent would
// prove nothing. So is U+FFFD in a prompt, which is what a JSON decoder
// makes of invalid UTF-8 or a lone surrogate: what was sent is unknown.
func SentPrompts(data []byte, name string) (digest.Digest, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("%s: does not parse as an inputs.json: %v", name, err)
	}
	entries, ok := obj["data"].([]any)
	if !ok {
		return digest.Digest{}, fmt.Errorf("%s: has no data list: is it an AIPerf or GenAI-Perf inputs.json?", name)
	}
	b, err := digest.NewBuilder(digest.TextOrdered, false)
	if err != nil {
		return digest.Digest{}, err
	}
	for i, e := range entries {
		payloads, key, err := entryPayloads(e)
		if err != nil {
			return digest.Digest{}, fmt.Errorf("%s: data[%d]: %v", name, i, err)
		}
		for j, p := range payloads {
			text, err := payloadPrompt(p)
			if err == nil {
				err = b.AddText(text)
			}
			if err != nil {
				return digest.Digest{}, fmt.Errorf("%s: data[%d].%s[%d]: %v; digest the prompts file instead", name, i, key, j, err)
			}
		}
	}
	if len(entries) == 0 {
		return digest.Digest{}, fmt.Errorf("%s: holds no prompt", name)
	}
	return b.Sum()
}

// entryPayloads are the request payloads of one entry, and the key that
// holds them.
func entryPayloads(entry any) ([]any, string, error) {
	for _, key := range []string{"payloads", "payload"} {
		if v, ok := lookup(entry, key); ok {
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return nil, "", fmt.Errorf("%s is not a list of payloads", key)
			}
			return list, key, nil
		}
	}
	return nil, "", errors.New("no payloads (AIPerf) or payload (GenAI-Perf): abbench reads the payloads of OpenAI chat and completions endpoints")
}

// payloadPrompt is the text of a chat payload's one message, or of a
// completions payload's prompt.
func payloadPrompt(p any) (string, error) {
	var v any
	if messages, ok := lookup(p, "messages"); ok {
		list, _ := messages.([]any)
		if len(list) != 1 {
			return "", fmt.Errorf("%d messages, not one: abbench digests one text per request", len(list))
		}
		v, _ = lookup(list[0], "content")
	} else if prompt, ok := lookup(p, "prompt"); ok {
		v = prompt
	} else {
		return "", errors.New("neither messages (chat) nor prompt (completions)")
	}
	text, ok := v.(string)
	switch {
	case !ok:
		return "", errors.New("the prompt is not one text (an image, audio or a list of parts?)")
	case strings.ContainsRune(text, '\uFFFD'):
		return "", errors.New("the prompt holds U+FFFD, what a JSON decoder makes of invalid UTF-8 or a lone surrogate: what was sent is unknown")
	}
	return text, nil
}
