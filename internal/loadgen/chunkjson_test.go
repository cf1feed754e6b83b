package loadgen

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeChunk: decodeChunk is json.Unmarshal into a chunk, for every
// input: the same refusals, the same fields.
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
		`{"x": "a\tb"}`, ` { } `, `{`, `{"a" 1}`, `{"a": 1,}`, `{"text": "x"} x`, `"s"`, `5`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, std chunk
		errFast, errStd := decodeChunk(data, &fast), json.Unmarshal(data, &std)
		if (errFast == nil) != (errStd == nil) {
			t.Fatalf("%q: decodeChunk says %v, encoding/json %v", data, errFast, errStd)
		}
		if errStd == nil && !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q: decodeChunk gives %+v, encoding/json %+v", data, fast, std)
		}
	})
}
