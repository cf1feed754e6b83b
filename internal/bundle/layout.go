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

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/rundir"
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
	// PodFile is the pod facts of a run under Kubernetes (machine.Pod),
	// as its launcher recorded them beside the attempt, redacted.
	PodFile = rundir.PodFile

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

	// ProvenanceSchema and ScopesSchema name the formats of
	// provenance.json and scopes.json (docs/schema). Bundles made before
	// they were named carry none and read as these first versions.
	ProvenanceSchema = "abbench-provenance-v1"
	ScopesSchema     = "abbench-scopes-v1"
)

// Provenance is provenance.json: who ran the run, where and from what.
type Provenance struct {
	Schema       string              `json:"schema"` // ProvenanceSchema; "" in bundles made before it was named
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
	// Pod is the Kubernetes pod the run ran in (PodFile's facts), for a
	// run whose token names a namespace (rundir.KubernetesNamespace);
	// PodUnread says why such a run has none: its node's and image's
	// versions cannot then be held to the other runs'.
	Pod       *machine.Pod `json:"pod,omitempty"`
	PodUnread string       `json:"pod_unread,omitempty"`
	// PodNodesUnread says which nodes the ranks registered from have no
	// facts among the pod's (machine.Pod.Nodes): their versions are not
	// held to the other runs'.
	PodNodesUnread string `json:"pod_nodes_unread,omitempty"`
}

// SourceRevision is the system under test's repository state.
type SourceRevision struct {
	Repository string `json:"repository"`
	Head       string `json:"head"`
	Tree       string `json:"tree"`
	Dirty      bool   `json:"dirty"`
}

// Scopes is scopes.json: each bundled log's (and hook output's) record,
// by its name. Bundles made before its schema was named hold the map of
// records alone (ReadScopes reads both).
type Scopes struct {
	Schema string                 `json:"schema"` // ScopesSchema
	Scopes map[string]ScopeRecord `json:"scopes"`
}

// ScopeRecord says where a bundled log's bytes came from.
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
	return checkProvenance(path, json.Unmarshal(data, &prov), &prov)
}

// parseProvenanceFacts is parseProvenance of every field but Environment,
// which it leaves nil: a verified bundle's provenance is read for its
// facts (machines, campaign, pod, source, images, hosts and times), and no
// step of verification nor comparison reads the ranks' environments, whose
// strings were half of decoding it for each of thousands of bundles. The
// bytes are still held to JSON's grammar whole (environment included).
func parseProvenanceFacts(path string, data []byte) (*Provenance, error) {
	var facts struct {
		provenanceFields
		Environment unread `json:"environment"` // shadows Provenance's
	}
	err := json.Unmarshal(data, &facts)
	prov := Provenance(facts.provenanceFields)
	return checkProvenance(path, err, &prov)
}

// provenanceFields are Provenance's fields, for a decode that shadows one.
type provenanceFields Provenance

// unread is a JSON value decoded into nothing (its grammar checked by
// json.Unmarshal before any decode).
type unread struct{}

func (unread) UnmarshalJSON([]byte) error { return nil }

// checkProvenance is prov, decoded from path's bytes with err, when it
// parsed and names its schema.
func checkProvenance(path string, err error, prov *Provenance) (*Provenance, error) {
	if err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", path, err)
	}
	if err := knownSchema(path, prov.Schema, ProvenanceSchema); err != nil {
		return nil, err
	}
	return prov, nil
}

// ReadScopes reads the scopes.json of the bundle directory dir: each
// bundled log's record by its name, of either format (Scopes, or the map
// of records alone that bundles made before its schema was named hold).
func ReadScopes(dir string) (map[string]ScopeRecord, error) {
	path := filepath.Join(dir, ScopesFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseScopes(path, data)
}

// parseScopes is ReadScopes of scopes.json's bytes, read from path. The
// bytes are decoded as Scopes once; only when they name no schema (a
// string) are they the older map, decoded as that.
func parseScopes(path string, data []byte) (map[string]ScopeRecord, error) {
	var sc struct {
		Schema json.RawMessage        `json:"schema"`
		Scopes map[string]ScopeRecord `json:"scopes"`
	}
	err := json.Unmarshal(data, &sc)
	var schema string
	if err != nil || json.Unmarshal(sc.Schema, &schema) != nil { // absent, or a log named "schema": the older map
		var scopes map[string]ScopeRecord
		if err := json.Unmarshal(data, &scopes); err != nil {
			return nil, fmt.Errorf("%s does not parse: %w", path, err)
		}
		return scopes, nil
	}
	if err := knownSchema(path, schema, ScopesSchema); err != nil {
		return nil, err
	}
	return sc.Scopes, nil
}

// knownSchema refuses a file of another schema than want: a newer format
// this abbench cannot read. "" is a bundle made before the schema was
// named, of its first version.
func knownSchema(path, got, want string) error {
	if got != "" && got != want {
		return fmt.Errorf("%s has schema %q; this abbench reads %s: read it with the abbench that made it, or a newer one", path, got, want)
	}
	return nil
}
