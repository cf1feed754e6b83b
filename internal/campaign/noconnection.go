package campaign

import (
	"fmt"
	"path/filepath"

	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// noConnection says, for a run in which abbench's own client got not one
// connection, why no repeat can change it, or "": every request failed to
// connect (its record's failure_kinds all "connect"), though the client
// started only once the servers were ready. A client pointed at a wrong
// port ran six runs of 256 refused requests each before the first look
// stopped the campaign; the next runs would be refused alike. Read from
// the client's record, a typed count, never from a reason's words.
func noConnection(run *Run) string {
	e := run.Evidence
	if e == nil || e.Throughput == nil || e.Throughput.Completed != 0 || e.Throughput.Failed <= 0 || run.Status == nil ||
		filepath.Base(e.Throughput.File) != scenarios.OpenAIResult {
		return ""
	}
	var rec struct {
		Kinds map[string]int `json:"failure_kinds"`
	}
	if rundir.ReadJSON(filepath.Join(run.Status.Dir, scenarios.OpenAIResult), &rec) != nil ||
		len(rec.Kinds) != 1 || rec.Kinds[loadgen.KindConnect] != e.Throughput.Failed {
		return ""
	}
	return fmt.Sprintf("not one of its %d requests got a connection (%s: %d): is the client's url the server's, its host and port?",
		e.Throughput.Failed, loadgen.KindConnect, e.Throughput.Failed)
}
