package arms

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strconv"

	"github.com/abbench/abbench/internal/readonly"
)

// followChunk is how much of a log one read takes; maxFollowedLine bounds
// the one partial line a follower holds. A longer line is skipped: no
// ready or mode line is a megabyte long, and memory stays bounded
// whatever a rank writes.
const (
	followChunk     = 256 << 10
	maxFollowedLine = 1 << 20
)

// follower reads a rank's log forward from where it last stopped and
// hands each complete line to a pattern: the readiness probe and the mode
// checks poll many times a second, and a log may be gigabytes long, so no
// byte is read twice and nothing but one chunk and one line is held.
type follower struct {
	path     string
	re       *regexp.Regexp
	next     int64  // the next byte to read
	partial  []byte // the line read so far, without its newline
	skipping bool   // the current line outgrew maxFollowedLine
	last     []string
	matched  bool
}

func newFollower(path string, offset int64, re *regexp.Regexp) *follower {
	return &follower{path: path, re: re, next: offset}
}

// poll reads what the log gained and reports whether any line from the
// offset matched; last holds the submatches of the latest match. The
// unfinished last line counts too, as it is at this moment.
func (f *follower) poll(buf []byte) bool {
	file, err := os.Open(f.path)
	if err != nil {
		return f.matched
	}
	defer readonly.Close(file)
	for {
		n, err := file.ReadAt(buf, f.next)
		f.feed(buf[:n])
		f.next += int64(n)
		if err != nil || n < len(buf) {
			if err != nil && err != io.EOF {
				return f.matched
			}
			break
		}
	}
	if len(f.partial) > 0 && !f.skipping {
		f.match(f.partial)
	}
	return f.matched
}

func (f *follower) feed(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			f.keep(data)
			return
		}
		if !f.skipping {
			if len(f.partial) == 0 {
				f.match(data[:i])
			} else {
				f.keep(data[:i])
				if !f.skipping {
					f.match(f.partial)
				}
			}
		}
		f.partial, f.skipping = f.partial[:0], false
		data = data[i+1:]
	}
}

func (f *follower) keep(b []byte) {
	if f.skipping {
		return
	}
	if len(f.partial)+len(b) > maxFollowedLine {
		f.partial, f.skipping = f.partial[:0], true
		return
	}
	f.partial = append(f.partial, b...)
}

func (f *follower) match(line []byte) {
	m := f.re.FindSubmatch(line)
	if m == nil {
		return
	}
	f.matched = true
	f.last = make([]string, len(m))
	for i, b := range m {
		f.last[i] = string(b)
	}
}

// lastLine is the last line of a log, quoted and cut to 200 bytes, for a
// reason's detail; it reads only the log's tail.
func lastLine(path string) string {
	file, err := os.Open(path)
	if err != nil {
		return strconv.Quote("")
	}
	defer readonly.Close(file)
	const tail = 64 << 10
	size, _ := file.Seek(0, io.SeekEnd)
	start := max(size-tail, 0)
	data := make([]byte, size-start)
	n, _ := file.ReadAt(data, start)
	data = bytes.TrimRight(data[:n], "\n")
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	}
	if len(data) > 200 {
		data = data[:200]
	}
	return strconv.Quote(string(data))
}

// pattern compiles a scenario pattern once (validation compiled it first).
func (c *controller) pattern(p string) *regexp.Regexp {
	if c.patterns == nil {
		c.patterns = map[string]*regexp.Regexp{}
	}
	re, ok := c.patterns[p]
	if !ok {
		re = regexp.MustCompile(p)
		c.patterns[p] = re
	}
	return re
}

// followBuf is the one read buffer of every follower: polling is sequential.
func (c *controller) followBuf() []byte {
	if c.buf == nil {
		c.buf = make([]byte, followChunk)
	}
	return c.buf
}
