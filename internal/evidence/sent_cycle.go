package evidence

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// sentCycle holds a duration run's sent prompts to the declared workload.
// Two arms given the same time send different counts, so their sent
// digests differ whatever they served; what they share is the cycle the
// requests go through. The client's cycle records must reproduce the
// declared digest, and request k must have carried the cycle's prompt
// k mod n; the workload digest is then the declared one, and the count
// sent is the Sent digest's.
func (c *collector) sentCycle(fail func(reason.Reason)) bool {
	s, role := c.e.Sent, c.s.OpenAIRole().Name
	rel, data, err := c.readLocal(scenarios.OpenAIDataset)
	if err != nil {
		fail(reason.New(reason.DigestMissing, "the client %s ran for workload.duration but left no readable record of the prompts it cycled through (%s): %s",
			role, scenarios.OpenAIDataset, strings.ReplaceAll(err.Error(), c.dir+string(filepath.Separator), "")).At(c.e.Arm, role, 0))
		return false
	}
	cd, cycle, err := digest.ReadRecords(bytes.NewReader(data), rel)
	if err != nil || len(cycle) == 0 {
		fail(reason.New(reason.DigestMissing, "the client %s's cycle records %s cannot be read: %v", role, rel, err).At(c.e.Arm, role, 0))
		return false
	}
	c.input(rel)
	declared := c.s.PromptsDigest
	if got, ok := digestIn(cycle, declared.Algorithm); !ok || got != declared {
		fail(reason.New(reason.WorkloadMismatch, "the openai client cycled through %s (%s), but the declared workload digests to %s: the sent workload is not the declared one (explain it: abbench digest --records declared.records with the workload's dataset, then abbench digest --explain declared.records %s)",
			cd, rel, declared, rel).At(c.e.Arm, role, 0))
		return false
	}
	for k, r := range c.sentRecs.recs {
		if want := cycle[k%len(cycle)]; r != want {
			fail(reason.New(reason.WorkloadMismatch, "request %d of the duration run carried other content (%s) than prompt %d of the declared workload (%s): the client did not send the declared cycle (%s, %s)",
				k, r, k%len(cycle)+1, want, s.Records, rel).At(c.e.Arm, role, 0))
			return false
		}
	}
	c.e.Workload = &declared
	return true
}
