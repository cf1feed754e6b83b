package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/atomicfile"
)

const profilingRounds = 3

// cohortState is a CTX rank's waiting queue. materialize activates exactly
// the cohort rank 0 chose, or changes nothing.
type cohortState struct {
	mu      sync.Mutex
	changed *sync.Cond
	waiting map[int]request
	order   []int // arrival order of waiting requests
	total   int
}

type request struct {
	prompt []uint32
	output int
}

func newCohortState() *cohortState {
	s := &cohortState{waiting: map[int]request{}}
	s.changed = sync.NewCond(&s.mu)
	return s
}

func (s *cohortState) enqueue(id int, r request, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.waiting[id]; !dup {
		s.waiting[id] = r
		s.order = append(s.order, id)
	}
	s.total = max(s.total, total)
	s.changed.Broadcast()
}

// pick is rank 0's choice: up to capacity waiting requests in queue order
// (or reversed, another valid order, under reorder-activations).
func (s *cohortState) pick(capacity int, reverse bool) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := slices.Clone(s.order[:min(capacity, len(s.order))])
	if reverse {
		slices.Reverse(ids)
	}
	return ids
}

// errWrongCohort is a follower's refusal: a cohort naming a request it does not hold.
var errWrongCohort = errors.New("cohort names requests this rank does not hold")

// materialize removes exactly ids from the waiting queue and returns them
// in cohort order, or returns errWrongCohort having changed nothing.
func (s *cohortState) materialize(ids []int) ([]request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.materializeLocked(ids)
}

func (s *cohortState) materializeLocked(ids []int) ([]request, error) {
	seen := map[int]bool{}
	for _, id := range ids {
		if _, ok := s.waiting[id]; !ok || seen[id] {
			return nil, fmt.Errorf("%w: request %d", errWrongCohort, id)
		}
		seen[id] = true
	}
	out := make([]request, len(ids))
	for i, id := range ids {
		out[i] = s.waiting[id]
		delete(s.waiting, id)
	}
	s.order = slices.DeleteFunc(s.order, func(id int) bool { return seen[id] })
	return out, nil
}

// materializeWait waits, bounded, for enqueues still in flight, since the
// frontend's messages to each rank race with rank 0's activation.
func (s *cohortState) materializeWait(ids []int, wait time.Duration) ([]request, error) {
	deadline := time.Now().Add(wait)
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		reqs, err := s.materializeLocked(ids)
		if err == nil || time.Now().After(deadline) {
			return reqs, err
		}
		t := time.AfterFunc(5*time.Millisecond, s.changed.Broadcast)
		s.changed.Wait()
		t.Stop()
	}
}

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

func runCtx(rank, ranks, genRanks int, coord, records string, cfg config, log *logger) error {
	if rank < 0 || rank >= ranks {
		return fmt.Errorf("--rank %d: must be between 0 and --ranks-1 (%d)", rank, ranks-1)
	}
	c := &ctxRank{rank: rank, ranks: ranks, genRanks: genRanks, cfg: cfg, log: log, q: newCohortState(),
		voteCount: map[int]int{}, isCommitted: map[int]bool{}, activationIndex: map[int]int{}, followers: map[int]*peer{},
		readyCh: make(chan msg, 1024), activateCh: make(chan msg, 1024)}
	c.committed = sync.NewCond(&c.mu)
	c.records = records
	c.act, _ = digest.NewBuilder(digest.TokensOrdered, records != "")
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
			c.q.enqueue(m.ID, request{m.Prompt, m.Output}, m.Total)
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

func (c *ctxRank) waitFollowers() error {
	deadline := time.Now().Add(30 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.followers) < c.ranks-1 {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d CTX followers connected within 30s", len(c.followers), c.ranks-1)
		}
		t := time.AfterFunc(10*time.Millisecond, c.committed.Broadcast)
		c.committed.Wait()
		t.Stop()
	}
	return nil
}

// readyRound waits for READY agreement on a round: from every follower
// (peer-ready 1) or from rank 1, relayed along the pipeline (peer-ready 0).
func (c *ctxRank) readyRound(round int) error {
	want := c.ranks - 1
	if c.cfg.peerReady == 0 && c.ranks > 1 {
		want = 1
	}
	for got := 0; got < want; {
		m := <-c.readyCh
		if m.Type == "refuse" {
			return fmt.Errorf("ctx rank %d refused round %d: %s", m.From, m.Round, m.Err)
		}
		if m.Round == round {
			got++
		}
	}
	return nil
}

func (c *ctxRank) broadcast(m msg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for r := 1; r < c.ranks; r++ {
		c.n.send(c.followers[r], m)
	}
}

func (c *ctxRank) lead() error {
	if err := c.waitFollowers(); err != nil {
		return err
	}
	gens := make([]*peer, c.genRanks)
	for i := range gens {
		p, err := c.n.dial(fmt.Sprintf("gen-%d", i))
		if err != nil {
			return err
		}
		gens[i] = p
	}
	for r := 1; r <= profilingRounds; r++ {
		c.broadcast(msg{Type: "activate", Round: r, Prof: true})
		if err := c.readyRound(r); err != nil {
			return err
		}
	}
	c.broadcast(msg{Type: "profiling_done"})
	c.endProfiling()
	round := profilingRounds
	for {
		c.q.mu.Lock()
		for len(c.q.order) == 0 {
			c.q.changed.Wait()
		}
		c.q.mu.Unlock()
		ids := c.q.pick(c.cfg.capacity, c.cfg.faults.reorderActivations)
		round++
		c.broadcast(msg{Type: "activate", Round: round, IDs: ids})
		if err := c.readyRound(round); err != nil {
			return err
		}
		reqs, err := c.q.materialize(ids)
		if err != nil {
			return err
		}
		c.activate(ids, reqs)
		prefill(reqs)
		// Terminal agreement: rank 0 asks every rank for its terminal vote
		// on the cohort. Blocking mode waits for the whole round trip before
		// the next round; asynchronous mode collects votes off the critical path.
		c.broadcast(msg{Type: "terminal", Round: round, IDs: ids})
		c.recordVotes(ids)
		c.mu.Lock()
		c.votes += len(ids)
		c.mu.Unlock()
		if c.terminal == 0 {
			c.waitCommitted(round, ids)
			c.mu.Lock()
			c.voteWaits++
			c.mu.Unlock()
		}
		for i, id := range ids {
			c.sendKV(gens[id%len(gens)], id, reqs[i])
		}
	}
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
		c.act.AddTokens(r.prompt)
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

func (s *cohortState) totalNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// waitCommitted is blocking terminal agreement: the next round waits for
// every rank's vote on this one, bounded by the vote timeout.
func (c *ctxRank) waitCommitted(round int, ids []int) {
	deadline := time.Now().Add(c.cfg.voteTimeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		missing := 0
		for _, id := range ids {
			if !c.isCommitted[id] {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			c.log.printf("terminal_vote_timeout rank=%d round=%d uncommitted=%d", c.rank, round, missing)
			return
		}
		t := time.AfterFunc(time.Until(deadline), c.committed.Broadcast)
		c.committed.Wait()
		t.Stop()
	}
}

func (c *ctxRank) sendKV(gen *peer, id int, r request) {
	m := msg{Type: "kv", ID: id, Output: r.output, SentAt: time.Now().UnixNano()}
	c.mu.Lock()
	slow := c.cfg.faults.kvTimeout > 0 && c.kvSent < c.cfg.faults.kvTimeout
	c.kvSent++
	c.mu.Unlock()
	if slow {
		// A congested transfer: really late, past the timeout, off the queue.
		go func() {
			time.Sleep(c.cfg.kvTimeout + 20*time.Millisecond)
			c.n.send(gen, m)
		}()
		return
	}
	c.n.send(gen, m)
}

// prefill stands for the cohort's compute; it is the same in every mode.
func prefill(reqs []request) {
	tokens := 0
	for _, r := range reqs {
		tokens += len(r.prompt)
	}
	time.Sleep(time.Millisecond + time.Duration(tokens)*200*time.Nanosecond)
}

func (c *ctxRank) follow() error {
	leader, err := c.n.dial("ctx-0")
	if err != nil {
		return err
	}
	c.n.send(leader, msg{Type: "hello", From: c.rank})
	var prev *peer // peer-ready 0: READY goes to the previous stage
	if c.cfg.peerReady == 0 {
		if prev, err = c.n.dial(fmt.Sprintf("ctx-%d", c.rank-1)); err != nil {
			return err
		}
	}
	last := c.rank == c.ranks-1
	for m := range c.activateCh {
		switch m.Type {
		case "profiling_done":
			c.endProfiling()
			continue
		case "terminal":
			c.vote(leader, m.IDs)
			continue
		}
		var reqs []request
		if !m.Prof {
			if reqs, err = c.q.materializeWait(m.IDs, 2*time.Second); err != nil {
				c.log.printf("activation_refused rank=%d round=%d reason=%q", c.rank, m.Round, err)
				c.n.send(leader, msg{Type: "refuse", From: c.rank, Round: m.Round, Err: err.Error()})
				return err
			}
			c.activate(m.IDs, reqs)
		}
		ready := msg{Type: "ready", From: c.rank, Round: m.Round}
		if c.cfg.peerReady == 1 {
			c.n.send(leader, ready)
		} else {
			if !last {
				if err := c.awaitReady(m.Round); err != nil {
					c.n.send(prev, msg{Type: "refuse", From: c.rank, Round: m.Round, Err: err.Error()})
					return err
				}
			}
			c.n.send(prev, ready)
		}
		if !m.Prof {
			prefill(reqs)
		}
	}
	return nil
}

func (c *ctxRank) awaitReady(round int) error {
	for {
		m := <-c.readyCh
		if m.Type == "refuse" {
			return fmt.Errorf("downstream rank %d refused round %d", m.From, m.Round)
		}
		if m.Round == round {
			return nil
		}
	}
}

// vote casts this rank's terminal votes; under drop-terminal-votes=K the
// last rank never votes for the last K requests of the workload.
func (c *ctxRank) vote(leader *peer, ids []int) {
	c.mu.Lock()
	voted := ids
	if k := c.cfg.faults.dropTerminalVotes; k > 0 && c.rank == c.ranks-1 {
		total := c.q.totalNow()
		voted = nil
		for _, id := range ids {
			if c.activationIndex[id] < total-k {
				voted = append(voted, id)
			}
		}
	}
	c.votes += len(voted)
	c.mu.Unlock()
	if len(voted) > 0 {
		c.n.send(leader, msg{Type: "vote", From: c.rank, IDs: voted})
	}
}
