package loadgen

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// TestContentLength: the digits alone are taken without strconv, the
// rest as strconv takes or refuses them; a second length must agree.
func TestContentLength(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   int64
		ok     bool
	}{
		{[]string{"180"}, 180, true},
		{[]string{"0"}, 0, true},
		{[]string{"007"}, 7, true},
		{[]string{"1234567890123456789"}, 1234567890123456789, true}, // past smallCount: strconv's
		{[]string{"99999999999999999999"}, 0, false},
		{[]string{"+5"}, 0, false},
		{[]string{"-5"}, 0, false},
		{[]string{""}, 0, false},
		{[]string{"1 2"}, 0, false},
		{[]string{"0x10"}, 0, false},
		{[]string{"12", "12"}, 12, true},
		{[]string{"12", "13"}, 0, false},
	} {
		h := head{length: -1}
		var err error
		for _, v := range tc.values {
			if err = h.contentLength([]byte(v)); err != nil {
				break
			}
		}
		if (err == nil) != tc.ok || tc.ok && (h.length != tc.want || !h.sawLength) {
			t.Errorf("Content-Length %q: length %d, %v; want %d, ok %v", tc.values, h.length, err, tc.want, tc.ok)
		}
	}
}

// TestTakeHeadInParts: a head whose first part has no end waits for the
// rest, and a first look at a whole head the in-place reading refuses
// (an interim answer first) is read by readHead.
func TestTakeHeadInParts(t *testing.T) {
	const body = `{"choices":[{"text":"x"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`
	whole := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	tk := newTaker(&client{o: Options{MaxTokens: 1}})
	for _, tc := range []struct {
		name  string
		parts []string
	}{
		{"in parts", []string{whole[:20], whole[:40], whole}},
		{"cut in its blank line", []string{whole[:len(whole)-len(body)-1], whole}},
		{"interim first", []string{"HTTP/1.1 100 Continue\r\n\r\n" + whole}},
		{"interim in parts", []string{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2", "HTTP/1.1 100 Continue\r\n\r\n" + whole}},
	} {
		var pd pending
		var out Outcome
		for i, part := range tc.parts {
			r := tk.take(&pd, []byte(part), false, digest.Prompt{}, time.Now(), &out)
			last := i == len(tc.parts)-1
			if r.need == last || last && (r.err != nil || !r.keep || out.Status != 200 || out.OutputTokens != 1) {
				t.Errorf("%s: part %d: took %+v, outcome %+v", tc.name, i, r, out)
			}
		}
	}
}

// TestValidValueLooksAtEveryByte: a header value is refused for a
// control byte (other than a tab) or DEL wherever it is, in a word
// looked at whole or in the bytes after the last, behind plain bytes
// and behind bytes past ASCII that carry into the next.
func TestValidValueLooksAtEveryByte(t *testing.T) {
	naive := func(v []byte) bool {
		for _, c := range v {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return false
			}
		}
		return true
	}
	for n := 1; n < 20; n++ {
		for at := range n {
			for b := range 256 {
				for _, before := range []byte{'a', 0xff, 0x80, '\t', 0x7e} {
					v := bytes.Repeat([]byte{before}, n)
					v[at] = byte(b)
					for j := at + 1; j < n; j++ {
						v[j] = 'z'
					}
					if got, want := validValue(v), naive(v); got != want {
						t.Fatalf("validValue(%q) = %v, want %v", v, got, want)
					}
				}
			}
		}
	}
}

// TestStatusLine: three digits from 100 make the status; a sign, a
// letter, a code below 100 or another protocol are refused.
func TestStatusLine(t *testing.T) {
	for line, want := range map[string]int{
		"HTTP/1.1 200 OK": 200, "HTTP/1.0 404": 404, "HTTP/1.1 999 X": 999, "HTTP/1.1 100 Continue": 100,
		"HTTP/1.1 099 X": 0, "HTTP/1.1 +20 X": 0, "HTTP/1.1 -20 X": 0, "HTTP/1.1 2x0 X": 0, "HTTP/1.1  200": 0,
		"HTTP/2.0 200 OK": 0, "HTTP/1.1 2000": 0, "HTTP/1.1 20": 0, "http/1.1 200 OK": 0,
	} {
		var h head
		err := h.statusLine([]byte(line))
		if want == 0 && err == nil || want != 0 && (err != nil || h.status != want || h.http10 != (line[7] == '0')) {
			t.Errorf("%q: status %d, %v; want %d", line, h.status, err, want)
		}
	}
}
