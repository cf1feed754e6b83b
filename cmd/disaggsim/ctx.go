package main

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/digest"
)

const profilingRounds = 3

// ctxRank is one CTX pipeline stage.
type ctxRank struct {
	rank, ranks, genRanks int
	cfg                   config
	terminal              int // the mode actually run
	n                     *node
	log                   *logger
	q                     *cohortState

	mu          sync.Mutex
	committed   *sync.Cond
	act         *digest.Builder
	alg         digest.Algorithm
	activated   int
	readyRounds int
	votes       int // terminal votes this rank cast
	commits     int // requests whose terminal agreement this rank knows of
	voteCount   map[int]int
	isCommitted map[int]bool
	// activationIndex is each request's position in the activation order.
	activationIndex map[int]int
	kvSent          int
	// voteWaits counts rounds whose next round waited on the terminal vote
	// round trip: the cost blocking mode puts on the critical path.
	voteWaits int

	records    string        // where to write the activation records at shutdown
	followers  map[int]*peer // rank 0: links to followers
	readyCh    chan msg
	activateCh chan msg
}

func runCtx(rank, ranks, genRanks int, coord, records string, alg digest.Algorithm, cfg config, log *logger) error {
	if rank < 0 || rank >= ranks {
		return fmt.Errorf("--rank %d: must be between 0 and --ranks-1 (%d)", rank, ranks-1)
	}
	c := &ctxRank{rank: rank, ranks: ranks, genRanks: genRanks, cfg: cfg, log: log, q: newCohortState(),
		voteCount: map[int]int{}, isCommitted: map[int]bool{}, activationIndex: map[int]int{}, followers: map[int]*peer{},
		readyCh: make(chan msg, 1024), activateCh: make(chan msg, 1024)}
	c.committed = sync.NewCond(&c.mu)
	c.records, c.alg = records, alg
	var err error
	if c.act, err = digest.NewBuilder(alg, records != ""); err != nil {
		return err
	}
	c.terminal = cfg.terminal
	if cfg.faults.ignoreArmEnv {
		c.terminal = 0
	}
	if cfg.faults.staleLog {
		c.writeStaleAttempt()
	}
	n, err := newNode(coord, fmt.Sprintf("ctx-%d", rank), cfg)
	if err != nil {
		return err
	}
	c.n = n
	c.logMode("profiling")
	go c.dispatch()

	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan error, 1)
	go func() {
		if rank == 0 {
			done <- c.lead()
		} else {
			done <- c.follow()
		}
	}()
	select {
	case <-term:
		c.shutdown()
		return nil
	case err := <-done:
		return err
	}
}

func (c *ctxRank) logMode(phase string) {
	c.log.printf("mode rank=%d phase=%s terminal=%d peer_ready=%d", c.rank, phase, c.terminal, c.cfg.peerReady)
}

func (c *ctxRank) writeStaleAttempt() {
	c.log.printf("mode rank=%d phase=profiling terminal=%d peer_ready=%d attempt=previous", c.rank, c.terminal, c.cfg.peerReady)
	c.log.printf("shutdown_summary rank=%d phase=profiling ready_rounds=%d terminal_votes=0 terminal_commits=0 attempt=previous", c.rank, profilingRounds)
	c.log.printf("mode rank=%d phase=runtime terminal=%d peer_ready=%d attempt=previous", c.rank, c.terminal, c.cfg.peerReady)
	c.log.printf("activation_sequence rank=%d count=1 digest=%064x algorithm=%s attempt=previous", c.rank, 0, digest.TokensOrdered)
	c.log.printf("shutdown_summary rank=%d phase=runtime ready_rounds=1 terminal_votes=1 terminal_commits=1 attempt=previous", c.rank)
}

// shutdown ends the measured lifecycle with its activation sequence and summary.
func (c *ctxRank) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, _ := c.act.Sum()
	if c.records != "" {
		var buf bytes.Buffer
		err := digest.WriteRecords(&buf, d, c.act.Records())
		if err == nil {
			err = atomicfile.WriteFile(c.records, buf.Bytes(), 0o644)
		}
		if err != nil {
			c.log.printf("error rank=%d writing activation records: %v", c.rank, err)
		}
	}
	c.log.printf("activation_sequence rank=%d count=%d digest=%s algorithm=%s", c.rank, d.Count, d.Hex, d.Algorithm)
	c.log.printf("shutdown_summary rank=%d phase=runtime ready_rounds=%d terminal_votes=%d terminal_commits=%d vote_waits=%d", c.rank, c.readyRounds, c.votes, c.commits, c.voteWaits)
}

// dispatch routes every inbound message.
func (c *ctxRank) dispatch() {
	for in := range c.n.inbox {
		m := in.m
		switch m.Type {
		case "hello":
			c.mu.Lock()
			c.followers[m.From] = in.reply
			c.committed.Broadcast()
			c.mu.Unlock()
		case "enqueue":
			if m.ID == c.cfg.faults.alterPrompt {
				// Served with other content than the client sent: the
				// fault is the server's, so the arm that injects it reaches
				// the ranks its mode line covers, not the client.
				m.Prompt = append(slices.Clone(m.Prompt), 0)
			}
			c.q.enqueue(m.ID, request{m.Prompt, m.Text, m.Output}, m.Total)
		case "ready", "refuse":
			c.readyCh <- m
		case "activate", "profiling_done", "terminal":
			c.activateCh <- m
		case "vote":
			c.recordVotes(m.IDs)
		case "commit":
			c.mu.Lock()
			c.commits += len(m.IDs)
			c.mu.Unlock()
		}
	}
}

// recordVotes is rank 0's tally: a request commits once every rank voted.
func (c *ctxRank) recordVotes(ids []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var newly []int
	for _, id := range ids {
		c.voteCount[id]++
		if c.voteCount[id] == c.ranks && !c.isCommitted[id] {
			c.isCommitted[id] = true
			newly = append(newly, id)
		}
	}
	if len(newly) == 0 {
		return
	}
	c.commits += len(newly)
	for _, f := range c.followers {
		c.n.send(f, msg{Type: "commit", IDs: newly})
	}
	c.committed.Broadcast()
}

func (c *ctxRank) endProfiling() {
	c.mu.Lock()
	c.log.printf("shutdown_summary rank=%d phase=profiling ready_rounds=%d terminal_votes=0 terminal_commits=0", c.rank, profilingRounds)
	c.mu.Unlock()
	c.logMode("runtime")
	c.log.printf("ready rank=%d addr=%s", c.rank, c.n.ln.Addr())
}

// activate records a materialized cohort: the activation digest is over
// prompt content in activation order; faults trigger half-way.
func (c *ctxRank) activate(ids []int, reqs []request) {
	c.mu.Lock()
	for i, r := range reqs {
		c.hash(ids[i], r)
		c.activationIndex[ids[i]] = c.activated + i
	}
	c.activated += len(ids)
	c.readyRounds++
	half := c.activated*2 >= c.q.totalNow()
	c.mu.Unlock()
	if half && c.cfg.faults.crashRank == c.rank {
		c.log.printf("fatal rank=%d fault=crash-rank activated=%d", c.rank, c.activated)
		os.Exit(3)
	}
	if half && c.cfg.faults.hangRank == c.rank {
		c.log.printf("hang rank=%d fault=hang-rank activated=%d", c.rank, c.activated)
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		select {}
	}
}

// hash adds a request's prompt to the activation digest, in the unit the
// rank hashes; a prompt of the other unit is said, and hashed as an empty
// one, so the digest shows it.
func (c *ctxRank) hash(id int, r request) {
	switch unit := c.alg.Unit(); {
	case unit == digest.UnitText && r.prompt == nil:
		if err := c.act.AddText(r.text); err != nil {
			c.log.printf("error rank=%d request=%d %v", c.rank, id, err)
			c.act.AddRecord(digest.RecordOf([]byte(r.text)))
		}
	case unit == digest.UnitTokens && r.text == "":
		c.act.AddTokens(r.prompt)
	default:
		c.log.printf("error rank=%d request=%d its prompt is not of the unit %s hashes (%s)", c.rank, id, c.alg, unit)
		c.act.AddRecord(digest.RecordOf(nil))
	}
}

// prefill stands for the cohort's compute; it is the same in every mode.
func prefill(reqs []request) {
	tokens := 0
	for _, r := range reqs {
		tokens += len(r.prompt) + len(r.text)/4
	}
	time.Sleep(time.Millisecond + time.Duration(tokens)*200*time.Nanosecond)
}
