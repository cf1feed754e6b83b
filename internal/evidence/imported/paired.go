package imported

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/rundir"
)

// checkPaired requires as many files of every arm: with Paired, the
// I-th file of each arm make one block, as the files say they pair (a
// sweep's point, a day, a machine measured under every arm).
func (o Options) checkPaired() error {
	for _, a := range o.Arms[1:] {
		if len(a.Files) != len(o.Arms[0].Files) {
			return &field.Error{Field: "Paired", Problem: fmt.Sprintf("pairs the I-th file of every arm: arm %s has %d file(s), arm %s %d", a.Name, len(a.Files), o.Arms[0].Name, len(o.Arms[0].Files))}
		}
	}
	return nil
}

// campaign is the plan the paired runs are of: block I holds the I-th
// file of every arm, in the arms' order, so compare pairs each treatment
// with the baseline of its block (an abba campaign's rule). Its digest is
// the import's, so no run of another import joins it.
func (o Options) campaign(matched string) *rundir.CampaignRef {
	sum := sha256.Sum256([]byte("abbench-import-paired-v1\n" + matched))
	c := &rundir.CampaignRef{PlanDigest: hex.EncodeToString(sum[:]), Scenario: Scenario(o.Format), MatchedDigest: matched, Order: "abba", Arms: len(o.Arms)}
	for range o.Arms[0].Files {
		for _, a := range o.Arms {
			c.Runs = append(c.Runs, fmt.Sprintf("%d-%s", len(c.Runs)+1, a.Name))
		}
	}
	return c
}

// writeProvenance writes the provenance.json of a paired run, arm ai's
// file j: what compare reads its block from. It holds nothing else: no
// host, allocation or environment of an imported run is known.
func writeProvenance(dir, token string, plan *rundir.CampaignRef, ai, j int) error {
	c := *plan
	c.Index = j*plan.Arms + ai + 1
	prov := bundle.Provenance{Schema: bundle.ProvenanceSchema, Tool: "abbench import (unsigned)", Token: token,
		Hosts: []string{}, Allocations: []string{}, Environment: map[string][]string{}, Campaign: &c}
	js, err := json.MarshalIndent(prov, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, bundle.ProvenanceFile), append(js, '\n'), 0o644)
}
