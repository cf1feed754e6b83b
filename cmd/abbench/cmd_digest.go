package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/atomicfile"
)

type digestOptions struct {
	algorithm string
	field     string
	records   string
	explain   bool
	format    formatFlag
}

func newDigestCmd() *cobra.Command {
	var opts digestOptions
	cmd := &cobra.Command{
		Use:   "digest FILE | digest --explain A.records B.records",
		Short: "Pinned prompt-content digest of a prompts file",
		Long: `digest computes the pinned prompt-content digest of a JSON Lines prompts file
(docs/digest.md): each line a JSON array of token IDs, a JSON string, or an
object holding prompt_token_ids or prompt (or the field named by --field).

The default algorithm is sha256-length-prefixed-prompt-sha256-v1 for token
files and sha256-length-prefixed-text-sha256-v1 for text files. Every error in
the file is reported as FILE:LINE: message.

--records writes every prompt's record (length and SHA-256 of its content) so
that two digests can later be explained: with --explain, abbench says whether
two records files are equal, the same prompts in another order (and where the
orders first differ), or different content (which prompts are in one only).`,
		Example: `  abbench digest testdata/prompts-256.jsonl
  abbench digest --format json --algorithm sha256-sorted-length-prefixed-prompt-sha256-v1 prompts.jsonl
  abbench digest --records a.records arm-a-prompts.jsonl
  abbench digest --explain a.records b.records`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.explain && len(args) != 2 {
				return usagef("abbench digest --explain A.records B.records", "--explain takes two records files, got %d argument(s)", len(args))
			}
			if !opts.explain && len(args) != 1 {
				return usagef("abbench digest FILE", "digest takes one prompts file, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.explain {
				return runExplain(cmd.OutOrStdout(), opts, args[0], args[1])
			}
			return runDigest(cmd.OutOrStdout(), opts, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.algorithm, "algorithm", "", "pinned algorithm identifier (default: by the file's prompts)")
	fs.StringVar(&opts.field, "field", "", "object field that holds each prompt (default prompt_token_ids, then prompt)")
	fs.StringVar(&opts.records, "records", "", "also write the per-prompt records to this file")
	fs.BoolVar(&opts.explain, "explain", false, "explain how two records files differ")
	addFormatFlag(fs, &opts.format, "text", "table", "json")
	return cmd
}

func runDigest(stdout io.Writer, opts digestOptions, file string) error {
	if err := opts.format.check(); err != nil {
		return err
	}
	var alg digest.Algorithm
	if opts.algorithm != "" {
		a, err := digest.ParseAlgorithm(opts.algorithm)
		if err != nil {
			return usageError(err, "")
		}
		alg = a
	}
	fd, err := digest.ReadFile(file, digest.ReadOptions{Algorithm: alg, Field: opts.field, KeepRecords: opts.records != ""})
	if errors.Is(err, os.ErrNotExist) {
		return usageError(err, "")
	}
	if err != nil {
		return err
	}
	if opts.records != "" {
		f, err := atomicfile.Create(opts.records, 0o644)
		if err != nil {
			return err
		}
		defer f.Abort()
		if err := digest.WriteRecords(f, fd.Digest, fd.Records); err != nil {
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	}
	if opts.format.value == "json" {
		return json.NewEncoder(stdout).Encode(fd.Digest)
	}
	_, err = fmt.Fprintf(stdout, "%s  %s\n", fd.Digest, file)
	return err
}

func readRecordsFile(path string) (digest.Digest, []digest.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return digest.Digest{}, nil, usageError(err, "write records files with abbench digest --records FILE")
	}
	defer f.Close()
	d, recs, err := digest.ReadRecords(f, path)
	if err != nil {
		return d, nil, usageError(err, "")
	}
	return d, recs, nil
}

func runExplain(stdout io.Writer, opts digestOptions, a, b string) error {
	if err := opts.format.check(); err != nil {
		return err
	}
	da, ra, err := readRecordsFile(a)
	if err != nil {
		return err
	}
	db, rb, err := readRecordsFile(b)
	if err != nil {
		return err
	}
	if da.Algorithm != db.Algorithm {
		return usagef("digests are only ever compared within one algorithm", "%s uses %s but %s uses %s", a, da.Algorithm, b, db.Algorithm)
	}
	e := digest.Explain(ra, rb)
	if opts.format.value == "json" {
		return json.NewEncoder(stdout).Encode(struct {
			A digest.Digest `json:"a"`
			B digest.Digest `json:"b"`
			digest.Explanation
		}{da, db, e})
	}
	fmt.Fprintf(stdout, "A: %s  %s\nB: %s  %s\n%s\n", da, a, db, b, e)
	return nil
}
