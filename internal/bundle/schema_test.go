package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/sshsig"
)

// topSchema is the schema field of a JSON file's top-level object, "" when
// it has none.
func topSchema(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Schema string `json:"schema"`
	}
	json.Unmarshal(data, &top) // the older scopes.json has a log's object there: ""
	return top.Schema
}

// provenance.json and scopes.json name their schemas, as every JSON file
// abbench writes does, and read back as written.
func TestProvenanceAndScopesNameTheirSchemas(t *testing.T) {
	b := writeBundle(t, nil, 4)
	if got := topSchema(t, filepath.Join(b, ProvenanceFile)); got != ProvenanceSchema {
		t.Errorf("%s: schema %q, want %q", ProvenanceFile, got, ProvenanceSchema)
	}
	if got := topSchema(t, filepath.Join(b, ScopesFile)); got != ScopesSchema {
		t.Errorf("%s: schema %q, want %q", ScopesFile, got, ScopesSchema)
	}
	if prov, err := ReadProvenance(b); err != nil || prov.Schema != ProvenanceSchema {
		t.Errorf("provenance read back: %+v, %v", prov, err)
	}
	if scopes, err := ReadScopes(b); err != nil || scopes["ctx-1.log"].SHA256 == "" {
		t.Errorf("scopes read back: %+v, %v", scopes, err)
	}
}

// A bundle made before the two schemas were named (the committed GPU
// bundles: provenance.json without the field, scopes.json the map of
// records alone) verifies as before, and both files read.
func TestBundleBeforeTheSchemasStillVerifies(t *testing.T) {
	const archive = "../../testdata/nccl/bundles/1-ring.tar.gz"
	signers, err := sshsig.ReadAllowedSigners("../../testdata/nccl/allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	opts := VerifyOptions{AllowedSigners: signers, Identity: "gpu-runs@abbench"}
	dir, cleanup, err := Open(archive, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if topSchema(t, filepath.Join(dir, ProvenanceFile)) != "" || topSchema(t, filepath.Join(dir, ScopesFile)) != "" {
		t.Fatalf("%s names its schemas: it no longer stands for the bundles made before", archive)
	}
	if _, err := Verify(dir, opts); err != nil {
		t.Fatalf("an older bundle no longer verifies: %v", err)
	}
	if prov, err := ReadProvenance(dir); err != nil || prov == nil || len(prov.Hosts) == 0 {
		t.Errorf("its provenance: %+v, %v", prov, err)
	}
	if scopes, err := ReadScopes(dir); err != nil || scopes["nccl-0.log"].SHA256 == "" {
		t.Errorf("its scopes: %+v, %v", scopes, err)
	}
}

// A schema this abbench does not know (a newer format) is refused naming
// the file, never read as the one it knows; an older scopes.json whose log
// is named "schema" is still the map of records.
func TestUnknownSchemasAreRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ProvenanceFile), []byte(`{"schema": "abbench-provenance-v9", "tool": "x"}`), 0o644)
	if _, err := ReadProvenance(dir); err == nil || !strings.Contains(err.Error(), "abbench-provenance-v9") || !strings.Contains(err.Error(), ProvenanceFile) {
		t.Errorf("a newer provenance: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ScopesFile), []byte(`{"schema": "abbench-scopes-v9", "scopes": {}}`), 0o644)
	if _, err := ReadScopes(dir); err == nil || !strings.Contains(err.Error(), "abbench-scopes-v9") || !strings.Contains(err.Error(), ScopesFile) {
		t.Errorf("newer scopes: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ScopesFile), []byte(`{"schema": {"source": "s", "offset": 0, "bytes": 3, "sha256": "ab"}}`), 0o644)
	if scopes, err := ReadScopes(dir); err != nil || scopes["schema"].Bytes != 3 {
		t.Errorf("an older scopes.json with a log named schema: %+v, %v", scopes, err)
	}
}
