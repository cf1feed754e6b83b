// Command genprompts writes a deterministic token prompts file for the
// benchmarks: prompts of MIN to MAX token IDs below 200,000, until SIZE bytes.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	size := flag.Int64("size", 512<<20, "stop once the file holds this many bytes")
	minTok := flag.Int("min", 100, "fewest tokens per prompt")
	maxTok := flag.Int("max", 8000, "most tokens per prompt")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" || *minTok < 0 || *maxTok < *minTok {
		fmt.Fprintln(os.Stderr, "usage: genprompts -o FILE [-size BYTES] [-min N] [-max N] [-seed S]")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genprompts:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(*seed, 0))
	var written int64
	var line []byte
	for written < *size {
		n := *minTok + r.IntN(*maxTok-*minTok+1)
		line = append(line[:0], '[')
		for i := range n {
			if i > 0 {
				line = append(line, ',')
			}
			line = strconv.AppendUint(line, uint64(r.IntN(200000)), 10)
		}
		line = append(line, ']', '\n')
		w.Write(line)
		written += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genprompts:", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "genprompts:", err)
		os.Exit(1)
	}
}
