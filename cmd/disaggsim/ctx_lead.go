package main

import (
	"fmt"
	"time"
)

// waitFollowers waits, bounded, for every follower's hello.
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

// broadcast sends m to every follower.
func (c *ctxRank) broadcast(m msg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for r := 1; r < c.ranks; r++ {
		c.n.send(c.followers[r], m)
	}
}

// lead is rank 0's loop: profiling rounds, then one round per cohort it
// picks (activate, READY agreement, prefill, terminal votes, KV to GEN).
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

// sendKV hands a prefilled request to its GEN rank; under kv-timeout=K the
// first K transfers arrive late.
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
