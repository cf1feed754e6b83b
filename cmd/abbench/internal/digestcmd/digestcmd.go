// Package digestcmd is abbench digest: prompt-content digests of a prompts file or a client's inputs.json, and their explanations.
package digestcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/records"
)

type digestOptions struct {
	algorithm string
	field     string
	records   string
	explain   bool
	inputs    bool
	multiTurn bool
	synthetic string
	format    cli.Format
}

// New is the command.
func New() *cobra.Command {
	var opts digestOptions
	cmd := &cobra.Command{
		Use:     "digest FILE | digest --explain A.records B.records",
		Short:   "Pinned prompt-content digest of a prompts file",
		Long:    help.Text("digest"),
		Example: help.Text("digest.examples"),
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.explain && len(args) != 2 {
				return cli.Usagef("abbench digest --explain A.records B.records", "--explain takes two records files, got %d argument(s)", len(args))
			}
			if opts.synthetic != "" && len(args) != 0 {
				return cli.Usagef("abbench digest --synthetic SPEC", "--synthetic makes its prompts: it takes no file, got %d argument(s)", len(args))
			}
			if !opts.explain && opts.synthetic == "" && len(args) != 1 {
				return cli.Usagef("abbench digest FILE", "digest takes one prompts file, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.explain {
				return runExplain(cmd.OutOrStdout(), opts, args[0], args[1])
			}
			if opts.inputs {
				return runSentDigest(cmd.OutOrStdout(), opts, args[0])
			}
			if opts.synthetic != "" {
				return runSynthetic(cmd.OutOrStdout(), opts)
			}
			return runDigest(cmd.OutOrStdout(), opts, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.algorithm, "algorithm", "", "pinned algorithm identifier (default: by the file's prompts)")
	fs.StringVar(&opts.field, "field", "", "object field that holds each prompt (default prompt_token_ids, then prompt)")
	fs.StringVar(&opts.records, "records", "", "also write the per-prompt records to this file")
	fs.BoolVar(&opts.explain, "explain", false, "explain how two records files differ")
	fs.BoolVar(&opts.multiTurn, "multi-turn", false, "a conversation dataset: every user turn is a request, as abbench load --multi-turn sends them (default the first)")
	fs.StringVar(&opts.synthetic, "synthetic", "", "digest the synthetic workload abbench load --synthetic SPEC sends (no FILE)")
	fs.BoolVar(&opts.inputs, "inputs", false, "FILE is a client's inputs.json (AIPerf, GenAI-Perf): digest the prompts it sent")
	cli.AddFormat(fs, &opts.format, "text", "table", "json")
	return cmd
}

func runDigest(stdout io.Writer, opts digestOptions, file string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	var alg digest.Algorithm
	if opts.algorithm != "" {
		a, err := digest.ParseAlgorithm(opts.algorithm)
		if err != nil {
			return cli.Usage(err, "")
		}
		alg = a
	}
	fd, err := readDataset(file, alg, opts)
	var lineErr *digest.LineError
	var entryErr *digest.EntryError
	if errors.As(err, &lineErr) {
		return cli.Usage(err, "a line is a JSON array of token IDs, a string, or an object whose field --field names")
	} else if errors.As(err, &entryErr) || errors.As(err, new(*formError)) || errors.Is(err, os.ErrNotExist) {
		return cli.Usage(err, "")
	}
	if err != nil {
		return err
	}
	return report(stdout, opts, fd, file)
}

// formError is a dataset given options that do not apply to its form.
type formError struct{ msg string }

func (e *formError) Error() string { return e.msg }

// readDataset digests a dataset file of any form, as abbench load sends it.
func readDataset(file string, alg digest.Algorithm, opts digestOptions) (digest.FileDigest, error) {
	form, err := digest.SniffFile(file)
	if err != nil || form == digest.FormPrompts {
		if opts.multiTurn {
			return digest.FileDigest{}, &formError{file + " is a prompts file: --multi-turn reads a conversation dataset (ShareGPT JSON or conversation JSON Lines)"}
		}
		return digest.ReadFile(file, digest.ReadOptions{Algorithm: alg, Field: opts.field, KeepRecords: opts.records != ""})
	}
	if opts.field != "" || (alg != "" && alg != digest.TextOrdered) {
		return digest.FileDigest{}, &formError{fmt.Sprintf("%s is a %s dataset, hashed with %s: --field and another --algorithm apply to prompts files", file, form, digest.TextOrdered)}
	}
	return digest.DigestConversations(file, opts.multiTurn, opts.records != "")
}

// runSynthetic digests the synthetic workload a spec makes.
func runSynthetic(stdout io.Writer, opts digestOptions) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	if opts.field != "" || opts.multiTurn || opts.algorithm != "" {
		return cli.Usagef("abbench digest --synthetic SPEC", "--synthetic takes no --field, --multi-turn or --algorithm: its prompts are token IDs, hashed in order")
	}
	spec, err := loadgen.ParseSynthetic(opts.synthetic)
	if err != nil {
		return cli.Usage(err, "")
	}
	d, recs, err := loadgen.DigestItems(spec.Items(), "")
	if err != nil {
		return err
	}
	return report(stdout, opts, digest.FileDigest{Digest: d, Unit: digest.UnitTokens, Records: recs}, "synthetic:"+spec.String())
}

// report writes the records file asked for and prints the digest.
func report(stdout io.Writer, opts digestOptions, fd digest.FileDigest, name string) error {
	if opts.records != "" {
		if err := digest.WriteRecordsFile(opts.records, fd.Digest, fd.Records); err != nil {
			return err
		}
	}
	if opts.format.Value == "json" {
		return json.NewEncoder(stdout).Encode(digestReport{digestSchema, fd.Digest.Algorithm, fd.Digest.Count, fd.Digest.Hex})
	}
	_, err := fmt.Fprintf(stdout, "%s  %s\n", fd.Digest, name)
	return err
}

// runSentDigest digests the prompts a client's inputs.json says it sent,
// with the pinned text algorithm (records.SentPrompts).
func runSentDigest(stdout io.Writer, opts digestOptions, file string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	if opts.explain || opts.algorithm != "" || opts.field != "" || opts.records != "" {
		return cli.Usagef("abbench digest --inputs inputs.json", "--inputs takes no --explain, --algorithm, --field or --records: the payloads say what each prompt is")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return cli.Usage(err, "")
	}
	d, err := records.SentPrompts(data, file)
	if err != nil {
		return cli.Usage(err, "an inputs.json entry holds payloads of one prompt text each (a chat message or a completions prompt)")
	}
	if opts.format.Value == "json" {
		return json.NewEncoder(stdout).Encode(digestReport{digestSchema, d.Algorithm, d.Count, d.Hex})
	}
	_, err = fmt.Fprintf(stdout, "%s  %s\n", d, file)
	return err
}

// The schemas of digest --format json and digest --explain --format json
// (docs/schema).
const digestSchema, explainSchema = "abbench-digest-v1", "abbench-digest-explain-v1"

// digestReport is digest --format json: the digest's own fields, after
// the schema.
type digestReport struct {
	Schema    string           `json:"schema"`
	Algorithm digest.Algorithm `json:"algorithm"`
	Count     uint64           `json:"count"`
	Digest    string           `json:"digest"`
}

func runExplain(stdout io.Writer, opts digestOptions, a, b string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	fe, err := digest.ExplainFiles(a, b)
	if errors.Is(err, os.ErrNotExist) {
		return cli.Usage(err, "write records files with abbench digest --records FILE")
	} else if err != nil {
		return cli.Usage(err, "digests are only ever compared within one algorithm, from records files")
	}
	if opts.format.Value == "json" {
		err = json.NewEncoder(stdout).Encode(struct { // one line, as the digest itself
			Schema string `json:"schema"`
			*digest.FileExplanation
		}{explainSchema, fe})
	} else {
		_, err = fmt.Fprintf(stdout, "A: %s  %s\nB: %s  %s\n%s\n", fe.A, a, fe.B, b, fe.Explanation)
	}
	if err != nil {
		return err
	}
	if fe.Relation != digest.Equal { // as diff(1) does: a script can branch on it
		return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("the digests differ: the prompts are %s", fe.Relation),
			Hint: "runs with these two digests are not one workload: a comparison of them is censored (digest-mismatch)"}
	}
	return nil
}
