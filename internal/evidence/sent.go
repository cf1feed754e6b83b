package evidence

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// SentDigest is what abbench's own client (an openai role) sent: the
// digest of its prompts in order of sending, read from its records file.
type SentDigest struct {
	Role    string        `json:"role"`
	Digest  digest.Digest `json:"digest"`
	Records string        `json:"records"` // relative to the run directory
}

// sentRecords is the openai client's records, read by sent.
type sentRecords struct {
	recs    []digest.Record
	problem string // why they could not be read, "" when they were
}

// sent reads what the openai client says it sent, when the scenario has one.
func (c *collector) sent() {
	r := c.s.OpenAIRole()
	if r == nil {
		return
	}
	rel, data, err := c.readLocal(scenarios.OpenAISent)
	if err != nil {
		c.sentRecs.problem = strings.ReplaceAll(err.Error(), c.dir+string(filepath.Separator), "")
		return
	}
	d, recs, err := digest.ReadRecords(bytes.NewReader(data), rel)
	if err != nil {
		c.sentRecs.problem = err.Error()
		return
	}
	c.input(rel)
	c.e.Sent = &SentDigest{Role: r.Name, Digest: d, Records: rel}
	c.sentRecs.recs = recs
}

// sentOnly is the digest criterion of a scenario whose server reports no
// activations: the client's digest of what it sent is the workload's, and
// must be the declared prompts'.
func (c *collector) sentOnly(fail func(reason.Reason)) string {
	s := c.e.Sent
	if s == nil {
		fail(c.sentMissing())
		return ""
	}
	c.e.Workload = &s.Digest
	if c.s.Workload.Duration > 0 {
		if !c.sentCycle(fail) {
			return ""
		}
		return fmt.Sprintf("the openai client (role %s) sent %d requests in %s, cycling through %s", s.Role, s.Digest.Count, c.s.Workload.Duration, c.e.Workload)
	}
	c.servedIsDeclared(s.Digest, "the openai client sent", fail)
	return fmt.Sprintf("the openai client (role %s) sent %s", s.Role, s.Digest)
}

func (c *collector) sentMissing() reason.Reason {
	role := c.s.OpenAIRole().Name
	return reason.New(reason.DigestMissing, "the client %s left no readable record of the prompts it sent (%s): %s", role, scenarios.OpenAISent, c.sentRecs.problem).At(c.e.Arm, role, 0)
}

// sentIsServed holds the client's sent prompts to the digest the ranks
// agreed on: the same prompts, in any order (a server of concurrent
// requests activates them in its own). A reordering is told from other
// content by the ranks' activation records.
func (c *collector) sentIsServed(served digest.Digest, facts []RankFacts, fail func(reason.Reason)) {
	s := c.e.Sent
	if s == nil {
		fail(c.sentMissing())
		return
	}
	c.servedIsDeclared(s.Digest, "the openai client sent", fail)
	if c.s.Workload.Duration > 0 && !c.sentCycle(fail) {
		return
	}
	if got, ok := digestIn(c.sentRecs.recs, served.Algorithm); ok && got == served {
		return
	}
	role := c.s.Evidence.Activation.Role
	for _, f := range facts {
		recs, path := c.rankRecords(f, served)
		if recs == nil {
			continue
		}
		e := digest.Explain(c.sentRecs.recs, recs)
		if e.Relation == digest.Different {
			fail(reason.New(reason.WorkloadMismatch, "the openai client sent %s, but %s rank %d served %s: %s (A = the client's %s, B = %s; abbench digest --explain %s %s)",
				s.Digest, role, f.Rank, served, e, s.Records, path, s.Records, path).At(c.e.Arm, role, f.Rank))
		}
		return
	}
	fail(reason.New(reason.WorkloadMismatch, "the openai client sent %s, which is not what the %s ranks served (%s), and no activation records tell a reordering from other content (name evidence.activation.records)",
		s.Digest, role, served))
}

// rankRecords is a rank's activation records when they reproduce the
// digest the ranks agreed on, with their path; nil otherwise.
func (c *collector) rankRecords(f RankFacts, agreed digest.Digest) ([]digest.Record, string) {
	if f.ActivationRecords == "" {
		return nil, ""
	}
	rel, data, err := c.readLocal(f.ActivationRecords)
	if err != nil {
		return nil, ""
	}
	d, recs, err := digest.ReadRecords(bytes.NewReader(data), rel)
	if err != nil || d != agreed {
		return nil, ""
	}
	return recs, f.ActivationRecords
}

// digestIn is the digest of recs under alg (false for an unknown one).
func digestIn(recs []digest.Record, alg digest.Algorithm) (digest.Digest, bool) {
	b, err := digest.NewBuilder(alg, false)
	if err != nil {
		return digest.Digest{}, false
	}
	for _, r := range recs {
		b.AddRecord(r)
	}
	d, err := b.Sum()
	return d, err == nil
}
