package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	ita1 "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"

	"github.com/abbench/abbench/internal/dsse"
	"github.com/abbench/abbench/internal/sshsig"
)

const scenarioYAML = `name: t
arms:
  async: {env: {TERM_MODE: "1"}}
  blocking: {env: {TERM_MODE: "0"}}
baseline: blocking
workload: {prompts: prompts.jsonl, requests: 4}
roles:
  - {name: ctx, ranks: 2, arm_env: true, command: [x]}
evidence:
  mode: {role: ctx, pattern: 'mode rank=(?P<rank>\d+) terminal=(?P<TERM_MODE>\d)'}
  lifecycle_end: {role: ctx, pattern: 'summary rank=(?P<rank>\d+)'}
  counters:
    commits: {role: ctx, pattern: 'summary rank=(?P<rank>\d+) commits=(?P<n>\d+)', value: n}
  throughput: {file: throughput.json, format: vllm}
acceptance:
  - {throughput: valid}
  - {counter: commits, role: ctx, equals: requests}
`

func newSigner(t *testing.T) (ssh.Signer, string) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.PublicKey())))
}

// makeRun writes a run directory (with an earlier attempt's bytes before
// each log's offset) and returns its scenario, evidence and status.
func makeRun(t *testing.T, commits1 int) (string, *scenarios.Scenario, []byte, *evidence.Evidence, *rundir.Status) {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "prompts.jsonl"), []byte("[1]\n[2]\n[3]\n[4]\n"), 0o644)
	scenarioPath := filepath.Join(root, "s.yaml")
	os.WriteFile(scenarioPath, []byte(scenarioYAML), 0o644)
	s, err := scenarios.Load(scenarioPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "run")
	os.MkdirAll(filepath.Join(dir, "coord", "ranks"), 0o755)
	os.MkdirAll(filepath.Join(dir, "coord", "env"), 0o755)
	st := &rundir.Status{Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Arm: "async", Token: "tok-1", Dir: dir, State: rundir.StateSucceeded,
		Started: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), Ended: time.Date(2026, 11, 30, 8, 1, 0, 0, time.UTC)}
	for rank, commits := range []int{4, commits1} {
		stale := "mode rank=9 terminal=0\nsummary rank=9 commits=0\n"
		log := fmt.Sprintf("%smode rank=%d terminal=1\nnoise \xff\xfe line\nsummary rank=%d commits=%d\n", stale, rank, rank, commits)
		name := fmt.Sprintf("ctx-%d.log", rank)
		os.WriteFile(filepath.Join(dir, name), []byte(log), 0o644)
		st.Ranks = append(st.Ranks, rundir.RankStatus{Role: "ctx", Rank: rank, Log: name, Offset: int64(len(stale))})
		v := "1"
		reg := rundir.Registration{Role: "ctx", Rank: rank, Host: "node-1", PID: 100 + rank, Token: "tok-1", ArmEnv: map[string]*string{"TERM_MODE": &v}}
		data, _ := json.Marshal(reg)
		os.WriteFile(filepath.Join(dir, "coord", "ranks", fmt.Sprintf("ctx-%d.json", rank)), data, 0o644)
		env, _ := json.Marshal([]string{"HF_TOKEN=[REDACTED]", "PATH=/bin", "TERM_MODE=1"})
		os.WriteFile(filepath.Join(dir, "coord", "env", fmt.Sprintf("ctx-%d.json", rank)), env, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "throughput.json"), []byte(`{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 99.5, "p99_ttft_ms": 12.5, "valid": true}`), 0o644)
	data, _ := json.Marshal(st)
	os.WriteFile(filepath.Join(dir, "status.json"), data, 0o644)
	ev, err := evidence.Collect(s, "async", dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, s, []byte(scenarioYAML), ev, st
}

func writeBundle(t *testing.T, signer ssh.Signer, commits1 int) string {
	t.Helper()
	dir, s, sb, ev, st := makeRun(t, commits1)
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test", Signer: signer}, dest); err != nil {
		t.Fatal(err)
	}
	return dest
}

func trust(t *testing.T, line string) *sshsig.AllowedSigners {
	as, err := sshsig.ParseAllowedSigners([]byte(line+"\n"), "allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	return as
}

func TestWriteAndVerify(t *testing.T) {
	signer, pub := newSigner(t)
	b := writeBundle(t, signer, 4)
	v, err := Verify(b, VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Evidence.Accepted || v.Signer != "ci@x" {
		t.Fatalf("verified %+v", v)
	}
	// The scoped bytes are verbatim, and the earlier attempt's are not there.
	log, _ := os.ReadFile(filepath.Join(b, "ctx-1.log"))
	if !bytes.HasPrefix(log, []byte("mode rank=1")) || !bytes.Contains(log, []byte("\xff\xfe")) {
		t.Fatalf("bundled log %q", log)
	}
	scopes, err := ReadScopes(b)
	if err != nil {
		t.Fatal(err)
	}
	if scopes["ctx-1.log"].Offset != int64(len("mode rank=9 terminal=0\nsummary rank=9 commits=0\n")) || scopes["ctx-1.log"].Bytes != int64(len(log)) {
		t.Fatalf("scope record %+v", scopes["ctx-1.log"])
	}
	// An unsigned bundle verifies only when allowed, and says so.
	u := writeBundle(t, nil, 4)
	if _, err := Verify(u, VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub)}); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("unsigned bundle: %v", err)
	}
	if v, err := Verify(u, VerifyOptions{AllowUnsigned: true}); err != nil || !v.Unsigned {
		t.Fatalf("unsigned with --allow-unsigned: %v", err)
	}
}

func TestSSHKeygenVerifiesTheManifest(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed")
	}
	signer, pub := newSigner(t)
	b := writeBundle(t, signer, 4)
	allowed := filepath.Join(t.TempDir(), "allowed")
	os.WriteFile(allowed, []byte("ci@x "+pub+"\n"), 0o644)
	manifest, _ := os.ReadFile(filepath.Join(b, ManifestFile))
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "ci@x", "-n", Namespace, "-s", filepath.Join(b, SignatureFile))
	cmd.Stdin = bytes.NewReader(manifest)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
}

// copyTree copies the bundle src in process: a cp per case of the tamper
// tests was a third of this package's quick-loop CPU.
func copyTree(t *testing.T, src string) string {
	dst := filepath.Join(t.TempDir(), "b")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func flipByte(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x20
	os.WriteFile(path, data, 0o644)
}

// resign rewrites the manifest for the bundle's current files and signs it
// with signer: what an insider holding a trusted key could do.
func resign(t *testing.T, dir string, signer ssh.Signer) {
	var st Statement
	data, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	json.Unmarshal(data, &st)
	for i, s := range st.Subject {
		sum, _ := filehash.SHA256(filepath.Join(dir, s.Name))
		st.Subject[i].Digest["sha256"] = sum
	}
	manifest, _ := json.MarshalIndent(st, "", "  ")
	signManifest(t, dir, signer, manifest)
}

// signManifest writes manifest as the bundle's, signed by signer, with
// its envelope.
func signManifest(t *testing.T, dir string, signer ssh.Signer, manifest []byte) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, ManifestFile), manifest, 0o644)
	sig, _ := sshsig.Sign(signer, Namespace, manifest)
	os.WriteFile(filepath.Join(dir, SignatureFile), sig, 0o644)
	env, _ := dsse.Sign(signer, dsse.InTotoPayloadType, manifest)
	data, _ := json.Marshal(env)
	os.WriteFile(filepath.Join(dir, DSSEFile), data, 0o644)
}

// writeEnvelope replaces the bundle's envelope with one of its manifest
// signed by signer with payloadType, its signature's keyid set to keyid.
func writeEnvelope(t *testing.T, dir string, signer ssh.Signer, payloadType, keyid string) {
	t.Helper()
	manifest, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	env, err := dsse.Sign(signer, payloadType, manifest)
	if err != nil {
		t.Fatal(err)
	}
	env.Signatures[0].KeyID = keyid
	data, _ := json.Marshal(env)
	if err := os.WriteFile(filepath.Join(dir, DSSEFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// forgeAccepted is what an insider holding a trusted key could do to a
// censored bundle: flip its evidence and the predicate to accepted, and
// re-sign.
func forgeAccepted(t *testing.T, dir string, signer ssh.Signer) {
	var ev map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, EvidenceFile))
	json.Unmarshal(data, &ev)
	ev["accepted"], ev["reasons"] = true, []any{}
	out, _ := json.MarshalIndent(ev, "", "  ")
	os.WriteFile(filepath.Join(dir, EvidenceFile), out, 0o644)
	var st Statement
	m, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	json.Unmarshal(m, &st)
	st.Predicate.Accepted = true
	m, _ = json.MarshalIndent(st, "", "  ")
	os.WriteFile(filepath.Join(dir, ManifestFile), m, 0o644)
	resign(t, dir, signer)
}

func TestTamperMatrix(t *testing.T) {
	signer, pub := newSigner(t)
	other, otherPub := newSigner(t)
	good := writeBundle(t, signer, 4)
	censored := writeBundle(t, signer, 3)
	opts := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"}
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		opts   *VerifyOptions
		want   string
		step   Step   // the step that fails
		file   string // the bundle's file it names
	}{
		{"evidence.json byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, EvidenceFile)) }, nil, "evidence.json was changed", StepFiles, EvidenceFile},
		{"scenario byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, ScenarioFile)) }, nil, "scenario.yaml was changed", StepFiles, ScenarioFile},
		{"log byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, "ctx-0.log")) }, nil, "ctx-0.log was changed", StepFiles, "ctx-0.log"},
		{"record byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, "throughput.json")) }, nil, "throughput.json was changed", StepFiles, "throughput.json"},
		{"registration byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, "coord", "ranks", "ctx-1.json")) }, nil, "coord/ranks/ctx-1.json was changed", StepFiles, "coord/ranks/ctx-1.json"},
		{"provenance byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, ProvenanceFile)) }, nil, "provenance.json was changed", StepFiles, ProvenanceFile},
		{"status byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, StatusFile)) }, nil, "status.json was changed", StepFiles, StatusFile},
		{"scopes byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, ScopesFile)) }, nil, "scopes.json was changed", StepFiles, ScopesFile},
		{"manifest byte", func(t *testing.T, d string) { flipByte(t, filepath.Join(d, ManifestFile)) }, nil, "signature", StepSignature, SignatureFile},
		{"file added", func(t *testing.T, d string) { os.WriteFile(filepath.Join(d, "extra.txt"), []byte("x"), 0o644) }, nil, "extra.txt is not in the manifest", StepFiles, "extra.txt"},
		{"file removed", func(t *testing.T, d string) { os.Remove(filepath.Join(d, "ctx-1.log")) }, nil, "[ctx-1.log] named in the manifest are missing", StepFiles, "ctx-1.log"},
		{"file renamed", func(t *testing.T, d string) {
			os.Rename(filepath.Join(d, "ctx-1.log"), filepath.Join(d, "ctx-9.log"))
		}, nil, "ctx-9.log is not in the manifest", StepFiles, "ctx-9.log"},
		{"symlink", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, "ctx-1.log"))
			os.Symlink("ctx-0.log", filepath.Join(d, "ctx-1.log"))
		}, nil, "symbolic link", StepFiles, "ctx-1.log"},
		{"signature removed", func(t *testing.T, d string) { os.Remove(filepath.Join(d, SignatureFile)) }, nil, "unsigned", StepSignature, SignatureFile},
		{"unknown key", func(t *testing.T, d string) { resign(t, d, other) }, nil, "not in allowed_signers", StepSignature, SignatureFile},
		{"wrong namespace", func(t *testing.T, d string) {
			manifest, _ := os.ReadFile(filepath.Join(d, ManifestFile))
			sig, _ := sshsig.Sign(signer, "file", manifest)
			os.WriteFile(filepath.Join(d, SignatureFile), sig, 0o644)
		}, nil, "namespace", StepSignature, SignatureFile},
		{"key not yet valid", func(t *testing.T, d string) {}, &VerifyOptions{AllowedSigners: trust(t, `ci@x valid-after="29990101" `+pub)}, "valid only after", StepSignature, SignatureFile},
		{"key expired", func(t *testing.T, d string) {}, &VerifyOptions{AllowedSigners: trust(t, `ci@x valid-before="20000101" `+pub)}, "valid only before", StepSignature, SignatureFile},
		{"other identity", func(t *testing.T, d string) {}, &VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub+"\nother@x "+otherPub), Identity: "other@x"}, "not in allowed_signers", StepSignature, SignatureFile},
		{"DSSE envelope of another bundle", func(t *testing.T, d string) {
			env, _ := os.ReadFile(filepath.Join(censored, DSSEFile))
			os.WriteFile(filepath.Join(d, DSSEFile), env, 0o644)
		}, nil, "manifest.dsse.json: its payload is not manifest.json", StepEnvelope, DSSEFile},
		{"DSSE envelope signed by another key", func(t *testing.T, d string) {
			writeEnvelope(t, d, other, dsse.InTotoPayloadType, "")
		}, nil, "manifest.dsse.json: dsse: the signature does not verify with key " + dsse.KeyID(signer.PublicKey()), StepEnvelope, DSSEFile},
		{"DSSE envelope signed by another key, its keyid naming it (as abbench wrote keyids before)", func(t *testing.T, d string) {
			writeEnvelope(t, d, other, dsse.InTotoPayloadType, dsse.KeyID(other.PublicKey()))
		}, nil, "the keyid names another key than " + dsse.KeyID(signer.PublicKey()), StepEnvelope, DSSEFile},
		{"DSSE envelope signed by another key under the trusted key's keyid", func(t *testing.T, d string) {
			writeEnvelope(t, d, other, dsse.InTotoPayloadType, dsse.KeyID(signer.PublicKey()))
		}, nil, "manifest.dsse.json: dsse: the signature does not verify", StepEnvelope, DSSEFile},
		{"DSSE payload type changed", func(t *testing.T, d string) {
			writeEnvelope(t, d, signer, "application/json", "")
		}, nil, "payloadType \"application/json\" is not application/vnd.in-toto+json", StepEnvelope, DSSEFile},
		{"signature swapped from another bundle", func(t *testing.T, d string) {
			sig, _ := os.ReadFile(filepath.Join(censored, SignatureFile))
			os.WriteFile(filepath.Join(d, SignatureFile), sig, 0o644)
		}, nil, "does not match the data", StepSignature, SignatureFile},
		{"manifest no valid in-toto Statement, re-signed", func(t *testing.T, d string) {
			// A digest of the wrong length, which the in-toto library refuses.
			manifest, _ := os.ReadFile(filepath.Join(d, ManifestFile))
			signManifest(t, d, signer, regexp.MustCompile(`"sha256": "[0-9a-f]{64}"`).ReplaceAll(manifest, []byte(`"sha256": "abcd"`)))
		}, nil, "manifest.json is not a valid in-toto Statement: digest has incorrect length", StepStatement, ManifestFile},
		{"manifest a stock in-toto verifier refuses, re-signed", func(t *testing.T, d string) {
			// A key given twice: encoding/json reads the last, protojson refuses it.
			manifest, _ := os.ReadFile(filepath.Join(d, ManifestFile))
			signManifest(t, d, signer, bytes.Replace(manifest, []byte(`"_type":`), []byte(`"_type": "x", "_type":`), 1))
		}, nil, `manifest.json does not parse: not as stock in-toto verifiers read it: key "_type" is given twice`, StepStatement, ManifestFile},
		{"evidence edited to accepted, re-signed", nil, nil, "does not match the evidence re-derived", StepRederive, EvidenceFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var dir string
			if c.tamper == nil {
				dir = copyTree(t, censored)
				forgeAccepted(t, dir, signer)
			} else {
				dir = copyTree(t, good)
				c.tamper(t, dir)
			}
			o := opts
			if c.opts != nil {
				o = *c.opts
			}
			_, err := Verify(dir, o)
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a VerifyError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q lacks %q", err, c.want)
			}
			if ve.Bundle != dir || ve.Step != c.step || ve.File != c.file {
				t.Fatalf("failed at %s step %s file %q, want %s step %s file %q", ve.Bundle, ve.Step, ve.File, dir, c.step, c.file)
			}
		})
	}
}

func TestArchiveRoundTripIsReproducible(t *testing.T) {
	signer, pub := newSigner(t)
	b := writeBundle(t, signer, 4)
	dir := t.TempDir()
	a1, a2 := filepath.Join(dir, "1.tar.gz"), filepath.Join(dir, "2.tar.gz")
	if err := Pack(b, a1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	os.Chtimes(filepath.Join(b, "ctx-0.log"), time.Now(), time.Now())
	Pack(b, a2)
	x, _ := os.ReadFile(a1)
	y, _ := os.ReadFile(a2)
	if !bytes.Equal(x, y) {
		t.Fatal("packing twice gave different archives")
	}
	out := filepath.Join(dir, "out")
	if err := Unpack(a1, out); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(out, VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub)}); err != nil {
		t.Fatal(err)
	}
}

// tarOf is a tar stream of entries, each regular file holding its body
// (its size, unless the header gives one).
func tarOf(entries []tar.Header, bodies map[string][]byte) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range entries {
		body := bodies[h.Name]
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = int64(len(body))
		}
		tw.WriteHeader(&h)
		if h.Typeflag == tar.TypeReg {
			tw.Write(body)
		}
	}
	tw.Close()
	return b.Bytes()
}

// gzipFile writes data gzip'd to a file in dir and returns its path.
func gzipFile(t *testing.T, dir string, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	gz.Write(data)
	gz.Close()
	path := filepath.Join(dir, "a.tar.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeTar(t *testing.T, entries []tar.Header, bodies map[string][]byte) string {
	return gzipFile(t, t.TempDir(), tarOf(entries, bodies))
}

func TestMaliciousArchives(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside")
	os.Mkdir(outside, 0o755)
	cases := map[string][]tar.Header{
		"dot-dot":  {{Name: "../escape", Typeflag: tar.TypeReg, Mode: 0o644}},
		"absolute": {{Name: filepath.Join(outside, "abs"), Typeflag: tar.TypeReg, Mode: 0o644}},
		"symlink then write-through": {
			{Name: "link", Typeflag: tar.TypeSymlink, Linkname: outside},
			{Name: "link/pwned", Typeflag: tar.TypeReg, Mode: 0o644},
		},
		"hard link": {{Name: "h", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"}},
		"device":    {{Name: "dev", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			archive := writeTar(t, entries, map[string][]byte{"../escape": []byte("x"), filepath.Join(outside, "abs"): []byte("x"), "link/pwned": []byte("x")})
			dest := filepath.Join(t.TempDir(), "dest")
			if err := Unpack(archive, dest); err == nil {
				t.Fatal("unpacked")
			}
			left, _ := os.ReadDir(outside)
			if len(left) > 0 {
				t.Fatalf("wrote outside the target: %v", left)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dest), "escape")); err == nil {
				t.Fatal("wrote ../escape")
			}
		})
	}
	t.Run("gzip bomb", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bomb.tar.gz")
		f, _ := os.Create(path)
		gz := gzip.NewWriter(f)
		tw := tar.NewWriter(gz)
		tw.WriteHeader(&tar.Header{Name: "big", Typeflag: tar.TypeReg, Mode: 0o644, Size: MaxArchiveBytes + 1})
		tw.Flush()
		gz.Close()
		f.Close()
		if err := Unpack(path, filepath.Join(t.TempDir(), "d")); err == nil || !strings.Contains(err.Error(), "more than") {
			t.Fatalf("bomb: %v", err)
		}
	})
}

// archiveOf packs bundle dir b, with extra files added to it first.
func archiveOf(t *testing.T, b string, extra map[string][]byte) string {
	t.Helper()
	c := copyTree(t, b)
	for name, body := range extra {
		os.WriteFile(filepath.Join(c, name), body, 0o644)
	}
	a := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := Pack(c, a); err != nil {
		t.Fatal(err)
	}
	return a
}

// An archive is trusted before it is unpacked: only its manifest and
// signature are read first, and only the files the manifest lists are
// extracted, each against its digest.
func TestUnpackVerifiedChecksTheSignatureFirst(t *testing.T) {
	signer, pub := newSigner(t)
	other, _ := newSigner(t)
	good := writeBundle(t, signer, 4)
	trusted := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub)}

	dest := filepath.Join(t.TempDir(), "ok")
	if err := UnpackVerified(archiveOf(t, good, nil), dest, trusted); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(dest, trusted); err != nil {
		t.Fatalf("an archive unpacked verified does not verify: %v", err)
	}

	for name, c := range map[string]struct {
		archive string
		opts    VerifyOptions
		want    string
		step    Step
		file    string
	}{
		"untrusted signer":  {archiveOf(t, writeBundle(t, other, 4), nil), trusted, "signature", StepSignature, SignatureFile},
		"unsigned":          {archiveOf(t, writeBundle(t, nil, 4), nil), trusted, "unsigned", StepSignature, SignatureFile},
		"file not listed":   {archiveOf(t, good, map[string][]byte{"extra.bin": bytes.Repeat([]byte("x"), 1<<20)}), trusted, "extra.bin is not in the manifest", StepFiles, "extra.bin"},
		"file changed":      {archiveOf(t, good, map[string][]byte{"ctx-0.log": []byte("forged\n")}), trusted, "ctx-0.log was changed", StepFiles, "ctx-0.log"},
		"unsigned, skipped": {archiveOf(t, writeBundle(t, nil, 4), map[string][]byte{"extra.bin": []byte("x")}), VerifyOptions{SkipSignature: true}, "extra.bin is not in the manifest", StepFiles, "extra.bin"},
	} {
		t.Run(name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "d")
			err := UnpackVerified(c.archive, dest, c.opts)
			var ve *VerifyError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want a VerifyError with %q", err, c.want)
			}
			if ve.Bundle != c.archive || ve.Step != c.step || ve.File != c.file {
				t.Fatalf("failed at %s step %s file %q, want %s step %s file %q", ve.Bundle, ve.Step, ve.File, c.archive, c.step, c.file)
			}
			if name == "untrusted signer" || name == "unsigned" {
				if entries, _ := os.ReadDir(dest); len(entries) > 0 {
					t.Fatalf("an untrusted archive was unpacked: %v", entries)
				}
			}
		})
	}
}

// A bundle's DSSE envelope carries the exact manifest, which the in-toto
// attestation library reads as a valid Statement v1 with the versioned
// predicate type and lowerCamelCase predicate fields.
func TestDSSEEnvelopeIsAnInTotoStatement(t *testing.T) {
	signer, pub := newSigner(t)
	b := writeBundle(t, signer, 4)
	data, err := os.ReadFile(filepath.Join(b, DSSEFile))
	if err != nil {
		t.Fatal(err)
	}
	env, err := dsse.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := env.DecodedPayload()
	manifest, _ := os.ReadFile(filepath.Join(b, ManifestFile))
	if env.PayloadType != dsse.InTotoPayloadType || string(payload) != string(manifest) {
		t.Fatalf("payload type %s, payload equals the manifest: %v", env.PayloadType, string(payload) == string(manifest))
	}
	var st ita1.Statement
	if err := protojson.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	if err := st.Validate(); err != nil {
		t.Fatalf("in-toto attestation library: %v", err)
	}
	pred := st.GetPredicate().AsMap()
	if st.GetPredicateType() != PredicateType || pred["matchedDigest"] == nil || pred["matched_digest"] != nil {
		t.Errorf("predicate type %s, fields %v", st.GetPredicateType(), pred)
	}
	v, err := Verify(b, VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"})
	if err != nil || !v.DSSE {
		t.Fatalf("verify: %v, DSSE checked %v", err, v != nil && v.DSSE)
	}
}

// An archive that unpacks (its manifest trusted, its files as listed) but
// whose evidence does not re-derive fails as a *VerifyError naming the
// archive, its step and file, with no temporary directory in its text;
// CheckAll reports the step and the file.
func TestVerifyPathFailsAtAStepOfTheArchive(t *testing.T) {
	signer, pub := newSigner(t)
	dir := copyTree(t, writeBundle(t, signer, 3))
	forgeAccepted(t, dir, signer)
	archive := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := Pack(dir, archive); err != nil {
		t.Fatal(err)
	}
	opts := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub)}
	_, err := VerifyPath(archive, opts)
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("got %T %v, want a VerifyError", err, err)
	}
	if ve.Bundle != archive || ve.Step != StepRederive || ve.File != EvidenceFile || !strings.HasPrefix(err.Error(), archive+": evidence.json does not match") {
		t.Fatalf("failed at %s step %s file %q: %v", ve.Bundle, ve.Step, ve.File, err)
	}
	if strings.Contains(err.Error(), "abbench-bundle-") { // where rundir.Resolve unpacks
		t.Fatalf("the error names a temporary directory: %v", err)
	}
	checks, failed := CheckAll([]string{archive}, opts)
	if failed != 1 || checks[0].Step != StepRederive || checks[0].File != EvidenceFile {
		t.Fatalf("checks %+v", checks)
	}
}

// An archive missing files its manifest lists names the first of them, by
// name, every time (they were named in map order).
func TestUnpackVerifiedNamesTheFirstMissingFile(t *testing.T) {
	signer, pub := newSigner(t)
	c := copyTree(t, writeBundle(t, signer, 4))
	for _, name := range []string{"ctx-0.log", "ctx-1.log", "throughput.json"} {
		os.Remove(filepath.Join(c, name))
	}
	archive := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := Pack(c, archive); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		err := UnpackVerified(archive, filepath.Join(t.TempDir(), "d"), VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub)})
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Step != StepFiles || ve.File != "ctx-0.log" || !strings.Contains(err.Error(), "ctx-0.log is in the manifest but not in the archive") {
			t.Fatalf("got %v, want ctx-0.log named at the files step", err)
		}
	}
}

// The bundles committed in testdata, made before the manifest was held to
// the in-toto attestation library and the envelope made by
// go-securesystemslib (and all but one before abbench wrote envelopes),
// still verify.
func TestCommittedBundlesStillVerify(t *testing.T) {
	allowed, err := sshsig.ReadAllowedSigners("../../testdata/nccl/allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	archives, _ := filepath.Glob("../../testdata/nccl/bundles/*.tar.gz")
	if len(archives) < 8 {
		t.Fatalf("found %d bundles", len(archives))
	}
	for _, a := range archives {
		v, err := VerifyPath(a, VerifyOptions{AllowedSigners: allowed, Identity: "gpu-runs@abbench"})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if withDSSE := filepath.Base(a) == "machine-ring.tar.gz"; v.DSSE != withDSSE || v.Signer == "" {
			t.Errorf("%s: signer %q, DSSE checked %v", a, v.Signer, v.DSSE)
		}
	}
}

// editEvidence rewrites a bundle's evidence.json with edit, and re-signs it
// as its signer would: what verification can still catch is then only what
// re-deriving the evidence shows.
func editEvidence(t *testing.T, dir string, signer ssh.Signer, edit func(ev map[string]any)) {
	t.Helper()
	var ev map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, EvidenceFile))
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	edit(ev)
	out, _ := json.MarshalIndent(ev, "", "  ")
	os.WriteFile(filepath.Join(dir, EvidenceFile), out, 0o644)
	var st Statement
	m, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	json.Unmarshal(m, &st)
	st.Predicate.Accepted = ev["accepted"] == true
	m, _ = json.MarshalIndent(st, "", "  ")
	os.WriteFile(filepath.Join(dir, ManifestFile), m, 0o644)
	resign(t, dir, signer)
}

// TestOlderRulesAreHeldToTheJudgment: evidence derived by older evidence
// rules may differ from its re-derivation in wording, but never in what a
// comparison reads; evidence of this abbench's rules must be equal; and
// evidence of newer rules than this abbench knows is not judged by it.
func TestOlderRulesAreHeldToTheJudgment(t *testing.T) {
	signer, pub := newSigner(t)
	good := writeBundle(t, signer, 4)
	censored := writeBundle(t, signer, 3)
	opts := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"}
	reworded := func(ev map[string]any) {
		ev["criteria"].([]any)[0].(map[string]any)["detail"] = "worded by older rules"
	}
	cases := []struct {
		name  string
		from  string
		edit  func(ev map[string]any)
		want  string // "" when it verifies
		older bool   // it verifies as evidence of older rules
	}{
		{"older rules, other wording", good, func(ev map[string]any) { delete(ev, "rules"); reworded(ev) }, "", true},
		{"older rules, forged accepted", censored, func(ev map[string]any) {
			delete(ev, "rules")
			ev["accepted"], ev["reasons"] = true, []any{}
		}, "is judged otherwise by this abbench's rules", false},
		{"older rules, other headline value", good, func(ev map[string]any) {
			delete(ev, "rules")
			ev["throughput"].(map[string]any)["metrics"].(map[string]any)["output_throughput"] = 1e6
		}, "is judged otherwise by this abbench's rules", false},
		{"older rules, a metric they did not read", good, func(ev map[string]any) {
			delete(ev, "rules")
			dropOneMetric(t, ev)
		}, "", true},
		{"this abbench's rules, a metric left out", good, func(ev map[string]any) { dropOneMetric(t, ev) }, "does not match the evidence re-derived", false},
		{"this abbench's rules, other wording", good, reworded, "does not match the evidence re-derived", false},
		{"newer rules", good, func(ev map[string]any) { ev["rules"] = evidence.RulesVersion + 1; reworded(ev) }, "newer than this abbench's", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyTree(t, c.from)
			editEvidence(t, dir, signer, c.edit)
			v, err := Verify(dir, opts)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			case c.want == "" && c.older != (v.OlderRules != ""):
				t.Fatalf("older rules %q, want said: %v", v.OlderRules, c.older)
			}
		})
	}
}

// dropOneMetric leaves a metric other than the headline out of the
// evidence's record, as rules before 4 left out the latencies.
func dropOneMetric(t *testing.T, ev map[string]any) {
	metrics := ev["throughput"].(map[string]any)["metrics"].(map[string]any)
	for name := range metrics {
		if name != "output_throughput" {
			delete(metrics, name)
			return
		}
	}
	t.Fatalf("the record has no metric but the headline: %v", metrics)
}
