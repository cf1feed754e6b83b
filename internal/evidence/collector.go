package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/metricscrape"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

type collector struct {
	s    *scenarios.Scenario
	e    *Evidence
	st   *rundir.Status
	dir  string
	root *os.Root // the run directory: every evidence file is read through it
	opts Options
	// sentRecs are the openai client's records of what it sent (sent.go).
	sentRecs sentRecords
	// scraped is the record of the servers' metrics scrapes, once read
	// (servermetrics.go).
	scraped *metricscrape.Record
}

// data is the template data of role's rank (nil: the whole run), with the
// host the rank registered from, as the controller expanded it.
func (c *collector) data(role *scenarios.Role, rank int) scenarios.TemplateData {
	host := ""
	if role != nil {
		if reg, ok := c.registration(role.Name, rank); ok {
			host = reg.Host
		}
	}
	return c.s.TemplateData(scenarios.Place{Arm: c.e.Arm, Token: c.e.Token, Out: c.dir, Role: role, Rank: rank, Host: host,
		Ports: scenarios.RecordedPorts(filepath.Join(rundir.Coord(c.dir), rundir.PortsFile))})
}

// input notes a file the evidence was derived from (relative to the run
// directory), so a bundle can carry it.
func (c *collector) input(rel string) {
	if !slices.Contains(c.e.Inputs, rel) {
		c.e.Inputs = append(c.e.Inputs, rel)
	}
}

// rel is path relative to the run directory when it is inside it.
// local is the path of an evidence file inside the run directory, or an
// error: evidence is read only from the run's own files, so a stale record
// elsewhere (an absolute path, ../) can never stand in for one the run wrote.
func (c *collector) local(file string) (string, error) {
	rel := file
	if filepath.IsAbs(file) {
		r, err := filepath.Rel(c.dir, file)
		if err != nil {
			return file, err
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		return file, fmt.Errorf("%s is outside the run directory: evidence is read only from the run's own files", file)
	}
	return rel, nil
}

// readLocal reads an evidence file through the run directory's root, and
// never through a symbolic link (package guarded): nothing leads outside it.
func (c *collector) readLocal(file string) (rel string, data []byte, err error) {
	rel, err = c.local(file)
	if err != nil {
		return rel, nil, err
	}
	if held, ok := c.held(rel); ok {
		return rel, held, nil
	}
	data, err = guarded.ReadFile(c.root, rel)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The same words as a plain open: a reason's text is part of the
		// evidence a bundle re-derives, whichever way the file was read.
		err = &fs.PathError{Op: "open", Path: rel, Err: pe.Err}
	}
	return rel, data, err
}

func (c *collector) rankStatus(role string, rank int) *rundir.RankStatus {
	for i := range c.st.Ranks {
		if c.st.Ranks[i].Role == role && c.st.Ranks[i].Rank == rank {
			return &c.st.Ranks[i]
		}
	}
	for _, h := range c.st.Hooks { // a hook is a rank of its list, its log read whole
		if h.Kind == role && h.Index == rank {
			return &rundir.RankStatus{Role: role, Rank: rank, Log: h.Log, ExitCode: h.ExitCode, Exited: true}
		}
	}
	return nil
}

func (c *collector) factsOf(role string) []RankFacts {
	var out []RankFacts
	for _, f := range c.e.Ranks {
		if f.Role == role {
			out = append(out, f)
		}
	}
	return out
}
