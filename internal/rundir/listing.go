package rundir

import (
	"io/fs"
	"os"
	"path/filepath"
)

// listing is a directory's entries by name and type, from one listing:
// which of a run's files a user's path holds is told by it, with no stat
// of each name (resolving a thousand campaigns asked the kernel four
// times for each).
type listing struct {
	dir   string
	types map[string]fs.FileMode
}

// list lists dir once.
func list(dir string) (listing, error) {
	entries, err := os.ReadDir(dir)
	l := listing{dir: dir, types: make(map[string]fs.FileMode, len(entries))}
	for _, e := range entries {
		l.types[e.Name()] = e.Type()
	}
	return l, err
}

// has says whether the directory holds name, as os.Stat would: an entry
// of any type but a link is there as listed; a symbolic link is followed
// (stated), so one that leads nowhere is missing.
func (l listing) has(name string) bool {
	t, ok := l.types[name]
	if !ok {
		return false
	}
	if t&fs.ModeSymlink == 0 {
		return true
	}
	return exists(filepath.Join(l.dir, name))
}
