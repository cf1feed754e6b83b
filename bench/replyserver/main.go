// Command replyserver is the plain HTTP endpoint of bench/load-client.sh:
// every request, whatever its method and path, is answered after -delay
// with one fixed OpenAI completions response (one token, with usage), so
// abbench load and wrk are measured against the same server.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

const reply = `{"id":"cmpl-0","object":"text_completion","model":"bench","choices":[{"index":0,"text":" x","finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":1,"total_tokens":17}}`

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	delay := flag.Duration("delay", time.Millisecond, "how long each answer takes")
	flag.Parse()
	srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the request is read whole, as a server would
		time.Sleep(*delay)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply)
	})}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "replyserver:", err)
		os.Exit(1)
	}
}
