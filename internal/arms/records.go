package arms

import (
	"encoding/json"
	"path/filepath"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// writeStatus writes status.json as the run stands; a failed write is
// kept in statusErr, and the first one becomes a reason.
func (c *controller) writeStatus() {
	if c.status.State != rundir.StateRunning {
		c.settleSyncs()
	}
	// Reasons quote commands, values and errors: no secret value the
	// templates read, and no URL's password, is written in clear.
	for i := range c.status.Reasons {
		c.status.Reasons[i].Detail = c.secrets.In(c.status.Reasons[i].Detail)
	}
	c.status.Ranks = c.status.Ranks[:0]
	for _, p := range c.procs {
		rs := rundir.RankStatus{Role: p.Role, Rank: p.Index, Log: p.Log, Offset: p.Offset, Inode: p.Inode, Killed: p.Killed(), Exited: p.exited(),
			ImageID: p.Image(), PID: p.PID()}
		rs.ExitCode = -1
		if rs.Exited {
			rs.ExitCode = p.exitCode()
		}
		if rel, err := filepath.Rel(c.dir, p.Log); err == nil {
			rs.Log = rel
		}
		c.status.Ranks = append(c.status.Ranks, rs)
	}
	c.statusErr = rundir.WriteStatus(c.dir, c.status)
	if c.statusErr != nil && !c.statusFailed {
		// Kept in memory: the next write that works records it.
		c.statusFailed = true
		c.fail(reason.New(reason.WriteFailed, "during phase %s: %v: an attempt killed then would not say how far it got", c.status.Phase, c.statusErr))
	}
}

// abortFile records why the run aborted in the token namespace, which
// the ranks can read.
func (c *controller) abortFile() {
	data, _ := json.Marshal(c.status.Reasons)
	if err := atomicfile.WriteFile(filepath.Join(c.coord, rundir.AbortFile), data, 0o644); err != nil {
		c.fail(reason.New(reason.WriteFailed, "the abort record: %v", err))
	}
}

// writeOffsets records every rank's log, and where in it the rank's
// output starts: the scope of the evidence.
func (c *controller) writeOffsets() error {
	offsets := map[string]rundir.Offset{}
	for _, p := range c.procs {
		rel, _ := filepath.Rel(c.dir, p.Log)
		offsets[p.Name()] = rundir.Offset{File: rel, Offset: p.Offset, Inode: p.Inode}
	}
	data, _ := json.MarshalIndent(offsets, "", "  ")
	path := filepath.Join(c.coord, rundir.OffsetsFile)
	if err := atomicfile.Publish(path, data, 0o644); err != nil {
		return err
	}
	c.syncLater(path) // on disk before the run says it ended (durable.go)
	return nil
}
