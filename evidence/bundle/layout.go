package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	ita1 "github.com/in-toto/attestation/go/v1"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/machine"
	"github.com/abbench/abbench/rundir"
)

// The names of the tree in the package comment, and the identifiers a
// bundle's signatures and manifest carry, each spelled only here (a test
// forbids these literals elsewhere).
const (
	ManifestFile  = "manifest.json"
	SignatureFile = "manifest.json.sig"
	// DSSEFile is the same statement in a DSSE envelope, signed by the
	// same key, for in-toto, cosign and SLSA verifiers.
	DSSEFile       = "manifest.dsse.json"
	ScenarioFile   = "scenario.yaml"
	ScopesFile     = "scopes.json"
	ProvenanceFile = "provenance.json"
	EvidenceFile   = rundir.EvidenceFile
	StatusFile     = rundir.StatusFile

	// Namespace is the SSH signature's namespace.
	Namespace = "abbench-evidence"
	// StatementType is the manifest's _type: an in-toto Statement v1.
	StatementType = ita1.StatementTypeUri
	// DigestAlgorithm names the digest of each file in the manifest.
	DigestAlgorithm = string(ita1.AlgorithmSHA256)
	// PredicateType is the versioned predicate spec (docs/bundles.md):
	// lowerCamelCase fields, as the in-toto guidelines ask.
	PredicateType = "https://github.com/abbench/abbench/blob/main/docs/bundles.md#predicate-v2"
	// PredicateTypeV1 is the first predicate (snake_case fields): bundles
	// made with it still verify.
	PredicateTypeV1 = "https://github.com/abbench/abbench/evidence/v1"
)

// Provenance is provenance.json: who ran the run, where and from what.
type Provenance struct {
	Tool         string              `json:"tool"`
	Source       *SourceRevision     `json:"source,omitempty"`
	Image        string              `json:"image,omitempty"`
	Hosts        []string            `json:"hosts"`
	Allocations  []string            `json:"allocations"`
	Token        string              `json:"token"`
	RestartCount string              `json:"restart_count,omitempty"`
	Started      time.Time           `json:"started"`
	Ended        time.Time           `json:"ended"`
	Prompts      *digest.Digest      `json:"prompts_digest"` // nil: a workload without prompts
	Environment  map[string][]string `json:"environment"`    // per rank, secrets redacted
	// Campaign is the campaign plan this run belongs to, when abbench run
	// started it: signed with the rest, so runs cannot be dropped from or
	// added to a campaign unnoticed.
	Campaign *rundir.CampaignRef `json:"campaign,omitempty"`
	// Machines are the facts of the hosts the run ran on (package
	// machine): compare censors runs of different hardware classes.
	Machines []machine.Facts `json:"machines,omitempty"`
	// NCCL is the NCCL version each rank's bundled log reports
	// (NCCL_DEBUG=INFO or VERSION prints it), by ROLE-RANK.
	NCCL map[string]string `json:"nccl,omitempty"`
	// Containers are the images the run's container roles ran, each by
	// the digest it was pinned to before the campaign's first run.
	Containers []rundir.ContainerImage `json:"containers,omitempty"`
}

// SourceRevision is the system under test's repository state.
type SourceRevision struct {
	Repository string `json:"repository"`
	Head       string `json:"head"`
	Tree       string `json:"tree"`
	Dirty      bool   `json:"dirty"`
}

// ScopeRecord says where a bundled log's bytes came from (scopes.json maps
// each log's name to its record).
type ScopeRecord struct {
	Source     string `json:"source"`
	Offset     int64  `json:"offset"`
	Inode      uint64 `json:"inode,omitempty"`
	Bytes      int64  `json:"bytes"`
	SHA256     string `json:"sha256"`
	Unreadable string `json:"unreadable,omitempty"`
}

// ReadProvenance reads the provenance.json of the bundle directory dir:
// nil, and no error, when dir holds none (a run that is no bundle). It
// trusts what it reads: Verify says whether the bundle is intact.
func ReadProvenance(dir string) (*Provenance, error) {
	path := filepath.Join(dir, ProvenanceFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseProvenance(path, data)
}

// parseProvenance parses data, the provenance.json at path.
func parseProvenance(path string, data []byte) (*Provenance, error) {
	var prov Provenance
	if err := json.Unmarshal(data, &prov); err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", path, err)
	}
	return &prov, nil
}
