package evidence

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// maxLine bounds one line; a longer one is cut there, so no log can
// exhaust memory. It is far above any real log line.
const maxLine = 64 << 20

// blockSize is how much ReadBlocks hands over at a time (a block grows to
// hold a longer line), read in one call. With the anchors found in one pass
// a block is read once after its copy: 1 MiB blocks cost less CPU than 256
// KiB (0.87x over 256 rank logs, in fewer reads) and than 512 KiB, 2 or 4
// MiB. (With a pass per anchor byte, 256 KiB was the best: a block stayed
// in a 1 MiB L2 cache between the passes.)
const blockSize = 1 << 20

// partBlockSize is the block of a reader of one part of a scope: it reads
// up to a block past the part's end, which must stay a small part of it
// (minPart).
const partBlockSize = 256 << 10

// blockPool keeps read blocks between scopes: with a thousand rank logs a
// fresh megabyte each cost more in clearing and returning memory than the
// search of it (a profile of 256 logs: a tenth of the time).
var blockPool = sync.Pool{New: func() any { b := make([]byte, blockSize); return &b }}

// eachLine calls fn with every line of block (without its newline) and
// its file offset, block starting at off.
func eachLine(block []byte, off int64, fn func(line []byte, off int64)) {
	for len(block) > 0 {
		i := bytes.IndexByte(block, '\n')
		line := block
		if i >= 0 {
			line, block = block[:i], block[i+1:]
		} else {
			block = nil
		}
		fn(line, off)
		off += int64(len(line)) + 1
	}
}

// blockReader hands a reader's bytes over in blocks of whole lines.
type blockReader struct {
	src  io.Reader
	fn   func(block []byte, off int64) bool // false: stop reading
	buf  []byte
	max  int   // the longest line handed over whole (maxLine)
	half int   // bytes in buf that make a block worth handing over
	have int   // bytes in buf
	off  int64 // the file offset of buf[0]
	n    int64 // bytes read
	skip bool  // inside a line cut at max: drop bytes to its newline
}

// run reads to the end, or until fn stops it.
func (b *blockReader) run() error {
	for {
		if b.have == len(b.buf) && !b.makeRoom() {
			return nil
		}
		k, err := b.src.Read(b.buf[b.have:])
		b.n += int64(k)
		if b.skip {
			k = b.dropCut(k)
		}
		b.have += k
		switch {
		case errors.Is(err, io.EOF):
			if b.have > 0 {
				b.fn(b.buf[:b.have], b.off)
			}
			return nil
		case err != nil:
			return err
		}
		if !b.handOver() {
			return nil
		}
	}
}

// makeRoom grows a full buffer, up to max; a full one of max holds part
// of a line longer than that: its first max bytes are handed over and the
// rest of it dropped. False: fn stopped the reading.
func (b *blockReader) makeRoom() bool {
	if len(b.buf) < b.max {
		b.buf = append(b.buf, make([]byte, len(b.buf))...)[:min(2*len(b.buf), b.max)]
		return true
	}
	if !b.fn(b.buf[:b.have], b.off) {
		return false
	}
	b.off += int64(b.have)
	b.have, b.skip = 0, true
	return true
}

// dropCut drops the k bytes just read up to the newline that ends a line
// cut at max, and returns how many of them are left.
func (b *blockReader) dropCut(k int) int {
	chunk := b.buf[b.have : b.have+k]
	i := bytes.IndexByte(chunk, '\n')
	if i < 0 {
		b.off += int64(k)
		return 0
	}
	copy(b.buf[b.have:], chunk[i+1:])
	b.off += int64(i + 1)
	b.skip = false
	return k - (i + 1)
}

// handOver hands the whole lines in the buffer over once it is full or
// holds half, and keeps the rest. False: fn stopped the reading.
func (b *blockReader) handOver() bool {
	last := bytes.LastIndexByte(b.buf[:b.have], '\n')
	if last < 0 || (b.have != len(b.buf) && b.have < b.half) {
		return true
	}
	if !b.fn(b.buf[:last+1], b.off) {
		return false
	}
	b.off += int64(last + 1)
	b.have = copy(b.buf, b.buf[last+1:b.have])
	return true
}
