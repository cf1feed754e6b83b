package main

import (
	"fmt"
	"time"
)

// follow is a follower's loop: it materializes exactly the cohort rank 0
// activated (or refuses it), says READY, and votes when asked.
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

// awaitReady waits for the next stage's READY on round (peer-ready 0).
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
