package loadgen

import (
	"strconv"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// BenchmarkTake is the client's own work to take one whole answer of the
// benchmark's server (bench/replyserver's, its Date header too) from the
// bytes read: the head, the body's framing, the JSON decoded and held to
// max_tokens. No system call: what the loop adds to the kernel's share.
func BenchmarkTake(b *testing.B) {
	const body = `{"id":"cmpl-0","object":"text_completion","model":"bench","choices":[{"index":0,"text":" x","finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":1,"total_tokens":17}}`
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Wed, 02 Dec 2026 12:17:04 GMT\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	t := newTaker(&client{o: Options{MaxTokens: 1}})
	p := digest.Prompt{}
	var pd pending
	var out Outcome
	sent := time.Now()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		pd.reset()
		out = Outcome{}
		if r := t.take(&pd, resp, false, p, sent, &out); r.err != nil || !r.keep {
			b.Fatalf("took %+v", r)
		}
	}
}
