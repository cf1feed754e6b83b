package evidence

import (
	"fmt"
	"path/filepath"

	"github.com/abbench/abbench/internal/reason"
)

// toolVerdict is {record: valid}: the record carries its tool's own
// verdict (MLPerf LoadGen's "Result is : VALID"), and the tool says the
// run is valid. A record without one cannot show it, whatever else it
// holds: throughput-invalid, as any record that does not prove a valid
// run (a record whose tool says INVALID is invalid already, and fails
// {throughput: valid} too).
func (c *collector) toolVerdict(fail func(reason.Reason)) string {
	r := c.e.Throughput
	switch {
	case r == nil:
		fail(reason.New(reason.ThroughputInvalid, "no throughput record, so no verdict of its tool"))
	case r.Unreadable:
		fail(reason.New(reason.ThroughputInvalid, "%s record %s cannot be read, so it shows no verdict of its tool: %s", r.Format, filepath.Base(r.File), r.Problems[0]))
	case r.Verdict == nil:
		fail(reason.New(reason.ThroughputInvalid, "%s record %s carries no verdict of its tool (the %s format has none, or this file lacks it): {record: valid} needs a tool that judges its own run", r.Format, filepath.Base(r.File), r.Format))
	case !r.Verdict.Valid:
		fail(reason.New(reason.ThroughputInvalid, "%s record %s: the tool says the run is not valid: %s", r.Format, filepath.Base(r.File), r.Verdict.Why()))
	default:
		return fmt.Sprintf("%s record: the tool says the run is valid", r.Format)
	}
	return ""
}
