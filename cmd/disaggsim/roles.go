package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// logger writes key=value lines, each stamped, to the process's output
// (abbench appends it to the rank's log).
type logger struct {
	mu sync.Mutex
	w  *os.File
}

func (l *logger) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := fmt.Fprintf(l.w, "%s %s\n", time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"), fmt.Sprintf(format, args...)); err != nil {
		// Its log is a rank's evidence: a rank that cannot write it stops
		// (abbench reports the exit) rather than run on unseen.
		fmt.Fprintf(os.Stderr, "disaggsim: writing the log: %v\n", err)
		os.Exit(1)
	}
}

func waitTerm() {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	<-term
}

// runGen is a GEN rank: it receives KV transfers from CTX rank 0 and
// generates output tokens at the configured rate.
func runGen(rank int, coord string, cfg config, log *logger) error {
	n, err := newNode(coord, fmt.Sprintf("gen-%d", rank), cfg)
	if err != nil {
		return err
	}
	log.printf("ready rank=%d addr=%s", rank, n.ln.Addr())
	var served, failed int
	var mu sync.Mutex
	go func() {
		for in := range n.inbox {
			if in.m.Type != "kv" {
				continue
			}
			m := in.m
			go func() {
				transfer := time.Since(time.Unix(0, m.SentAt))
				front, err := n.dial("frontend-0")
				if err != nil {
					log.printf("error rank=%d %v", rank, err)
					return
				}
				if transfer > cfg.kvTimeout {
					mu.Lock()
					failed++
					mu.Unlock()
					log.printf("kv_transfer_timeout rank=%d id=%d transfer=%s timeout=%s", rank, m.ID, transfer, cfg.kvTimeout)
					n.send(front, msg{Type: "done", ID: m.ID, Err: "kv transfer timeout"})
					return
				}
				gen := time.Duration(float64(m.Output) / cfg.genRate * float64(time.Second))
				n.send(front, msg{Type: "first", ID: m.ID}) // generation starts: a stream's first token
				time.Sleep(gen)
				mu.Lock()
				served++
				mu.Unlock()
				n.send(front, msg{Type: "done", ID: m.ID, OK: true, Output: m.Output, SentAt: int64(gen)})
			}()
		}
	}()
	waitTerm()
	mu.Lock()
	log.printf("shutdown_summary rank=%d role=gen served=%d failed=%d", rank, served, failed)
	mu.Unlock()
	return nil
}

// runFrontend routes the client's requests to every CTX rank and GEN's
// completions back to the client; with an API port it serves the OpenAI
// API too (openai.go).
func runFrontend(coord string, ctxRanks int, cfg config, opts apiOptions, log *logger) error {
	n, err := newNode(coord, "frontend-0", cfg)
	if err != nil {
		return err
	}
	f := &frontend{n: n, ctx: make([]*peer, ctxRanks)}
	for i := range f.ctx {
		if f.ctx[i], err = n.dial(fmt.Sprintf("ctx-%d", i)); err != nil {
			return err
		}
	}
	// The faults the frontend runs with, as it parsed them: a mode rule of
	// the frontend's role proves what the arm gave it.
	log.printf("mode rank=0 role=frontend faults=%q", cfg.faults.spec)
	if opts.port != "" {
		if f.web, err = startAPI(n, f.ctx, cfg, opts); err != nil {
			return err
		}
		defer f.web.stop()
		log.printf("ready addr=%s ctx_ranks=%d http=%s model=%s", n.ln.Addr(), ctxRanks, f.web.addr, opts.model)
	} else {
		log.printf("ready addr=%s ctx_ranks=%d", n.ln.Addr(), ctxRanks)
	}
	go f.route()
	waitTerm()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.web != nil {
		log.printf("shutdown_summary role=frontend routed=%d completed=%d http_received=%d http_served=%d http_failed=%d",
			f.routed, f.completed, f.web.received.Load(), f.web.served.Load(), f.web.failed.Load())
		return nil
	}
	log.printf("shutdown_summary role=frontend routed=%d completed=%d", f.routed, f.completed)
	return nil
}

// frontend is the frontend's links and counts.
type frontend struct {
	n                 *node
	ctx               []*peer
	web               *api // nil without the OpenAI API
	client            *peer
	mu                sync.Mutex
	routed, completed int
}

// route delivers every inbound message: the client's requests to every
// CTX rank, GEN's news of a request to its HTTP handler or the client.
func (f *frontend) route() {
	for in := range f.n.inbox {
		switch in.m.Type {
		case "request":
			f.mu.Lock()
			f.client = in.reply
			f.routed++
			f.mu.Unlock()
			for _, p := range f.ctx {
				f.n.send(p, msg{Type: "enqueue", ID: in.m.ID, Prompt: in.m.Prompt, Output: in.m.Output, Total: in.m.Total})
			}
		case "first":
			if f.web != nil {
				f.web.deliver(in.m)
			}
		case "done":
			f.mu.Lock()
			f.completed++
			client := f.client
			f.mu.Unlock()
			if f.web != nil && f.web.deliver(in.m) {
				continue
			}
			if client != nil {
				// Straight back: the client is on this host, not across the fabric.
				client.queue <- queued{time.Now(), in.m}
			}
		}
	}
}
