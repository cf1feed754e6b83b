// Package digest implements the pinned prompt-content digests of abbench,
// as docs/digest.md specifies them.
//
// A Digest is the triple (algorithm, count, hex digest). It is only ever
// compared with a digest of the same algorithm; an unknown algorithm
// identifier is an error everywhere, never a guess.
//
// What this package guarantees:
//   - every test vector of the specification reproduces (see vectors_test.go);
//   - a Builder hashes prompts one at a time, in activation order, in bounded
//     memory: per-prompt records are spilled to a temporary file past a fixed
//     budget, because the specification puts the count before the records;
//     the sorted (multiset) algorithm must sort, so it holds 40 bytes per prompt;
//   - ReadFile parses a JSON Lines prompts file with both cores, and the digest
//     does not depend on how the work was split;
//   - Explain tells equal, reordered and different-content record lists apart;
//   - SniffForm tells a prompts file from ShareGPT JSON and conversation JSON
//     Lines, and ReadConversations yields a conversation dataset's requests
//     one at a time, each hashed (text algorithm) by its Body: its messages
//     and output length as the request carries them (dataset.go).
package digest
