package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// token is the text of every generated token.
const token = " x"

// answer writes a whole (not streamed) response once GEN is done with
// the request: its text and usage, or the failure.
func (a *api) answer(w http.ResponseWriter, s served, m msg) {
	switch {
	case !m.OK:
		a.failed.Add(1)
		apiError(w, http.StatusInternalServerError, "generation failed: "+m.Err)
	case s.fail:
		a.failed.Add(1)
		apiError(w, http.StatusInternalServerError, fmt.Sprintf("injected failure (fail-every=%d) of request %d", a.cfg.faults.failEvery, s.index))
	default:
		a.served.Add(1)
		writeJSON(w, http.StatusOK, a.completion(s, strings.Repeat(token, s.output), true))
	}
}

// stream writes a streamed response: a token when GEN starts generating,
// the next ones paced at the generation rate, the last when GEN is done,
// then the usage chunk (if asked) and data: [DONE]. A failure before the
// first token is an HTTP error; after it, an error event ends the stream.
func (a *api) stream(w http.ResponseWriter, r *http.Request, s served, p *pending) {
	select {
	case <-p.first:
	case m := <-p.done: // failed before generating
		a.answer(w, s, m)
		return
	case <-r.Context().Done():
		return
	}
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	event := func(v any) bool {
		data, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	start, every := time.Now(), time.Duration(float64(time.Second)/a.cfg.genRate)
	for i := 0; i < s.output-1; i++ {
		if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		if !event(a.chunk(s, token, "")) {
			return
		}
	}
	var m msg
	select {
	case m = <-p.done:
	case <-r.Context().Done():
		return
	}
	if !m.OK {
		a.failed.Add(1)
		event(map[string]any{"error": map[string]any{"message": "generation failed: " + m.Err, "code": 500}})
		return
	}
	event(a.chunk(s, token, finishReason(s)))
	if s.usage {
		c := a.completion(s, "", false)
		c["choices"] = []any{}
		event(c)
	}
	a.served.Add(1)
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err != nil {
		return // the client went away: nothing more to tell it
	}
	if fl != nil {
		fl.Flush()
	}
}

// finishReason is why generation stopped: the length limit, or "EOS".
func finishReason(s served) string {
	if s.capped {
		return "length"
	}
	return "stop"
}

// completion is a whole response (whole: with usage) of either endpoint.
func (a *api) completion(s served, text string, whole bool) map[string]any {
	obj, choice := "text_completion", map[string]any{"index": 0, "text": text, "finish_reason": finishReason(s)}
	if s.chat {
		obj, choice = "chat.completion", map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": finishReason(s)}
	}
	if !whole && s.chat {
		obj = "chat.completion.chunk"
	}
	c := map[string]any{"id": fmt.Sprintf("cmpl-%d", s.index), "object": obj, "created": time.Now().Unix(), "model": a.opts.model,
		"choices": []any{choice},
		"usage":   map[string]any{"prompt_tokens": s.promptLen, "completion_tokens": s.output, "total_tokens": s.promptLen + s.output}}
	return c
}

// chunk is one streamed event carrying text.
func (a *api) chunk(s served, text, finish string) map[string]any {
	var reason any
	if finish != "" {
		reason = finish
	}
	obj, choice := "text_completion", map[string]any{"index": 0, "text": text, "finish_reason": reason}
	if s.chat {
		obj, choice = "chat.completion.chunk", map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": reason}
	}
	return map[string]any{"id": fmt.Sprintf("cmpl-%d", s.index), "object": obj, "created": time.Now().Unix(), "model": a.opts.model, "choices": []any{choice}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data) // a client that left loses its answer, nothing else
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": http.StatusText(status), "code": status}})
}
