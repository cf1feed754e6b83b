package evidence

import (
	"encoding/json"
	"path/filepath"

	"github.com/abbench/abbench/internal/rundir"
)

// held is the file rel (relative to the run directory) as the caller read
// it (Options.Files), when it holds it.
func (c *collector) held(rel string) ([]byte, bool) {
	data, ok := c.opts.Files[filepath.ToSlash(filepath.Clean(rel))]
	return data, ok
}

// exists says whether the run directory has the file rel: held, or there.
func (c *collector) exists(rel string) bool {
	if _, ok := c.held(rel); ok {
		return true
	}
	_, err := c.root.Stat(rel)
	return err == nil
}

// size is the size of the scope's log (0 when it cannot be told: reading
// it says why).
func (c *collector) size(read Scope) int64 {
	if read.held != nil {
		return int64(len(*read.held))
	}
	if st, err := c.root.Lstat(read.File); err == nil {
		return st.Size()
	}
	return 0
}

// registration is the registration of role's rank, read as
// rundir.ReadRegistration reads it (held bytes first): ok is false when
// there is none or it does not parse.
func (c *collector) registration(role string, rank int) (rundir.Registration, bool) {
	coord := rundir.Coord(c.dir)
	rel, err := filepath.Rel(c.dir, rundir.RegistrationPath(coord, role, rank))
	if data, ok := c.held(rel); ok && err == nil {
		var reg rundir.Registration
		return reg, json.Unmarshal(data, &reg) == nil
	}
	reg, ok, _ := rundir.ReadRegistration(coord, role, rank)
	return reg, ok
}
