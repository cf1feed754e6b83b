package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/atomicfile"
)

// WriteJSON writes v as indented JSON to path atomically, synced to disk
// first: readers see the whole file or the one before it.
func WriteJSON(path string, v any) error { return writeJSON(path, v, syncFile) }

// PublishJSON writes v as indented JSON to path atomically without a
// sync: for coordination files of coord/, which matter only while their
// run is alive (atomicfile.Publish).
func PublishJSON(path string, v any) error { return writeJSON(path, v, publishFile) }

func writeJSON(path string, v any, write func(string, []byte, os.FileMode) error) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return write(path, append(data, '\n'), 0o644)
}

// ReadJSON reads path's JSON into v; errors name the file.
func ReadJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return decodeJSON(path, data, v)
}

// decodeJSON decodes data, read from path, into v; errors name the file.
func decodeJSON(path string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteLatest names token as the newest attempt of the --out directory
// out, atomically but not synced: the controller syncs it while the
// attempt runs, before its status says it ended.
func WriteLatest(out, token string) error {
	return publishFile(LatestPath(out), []byte(token+"\n"), 0o644)
}

// LatestPath is the LATEST file of the --out directory out.
func LatestPath(out string) string { return filepath.Join(out, Latest) }

// LatestAttempt is the newest attempt directory of the --out directory out.
func LatestAttempt(out string) (string, error) {
	token, err := readFile(LatestPath(out))
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(token))
	if t == "" || strings.ContainsAny(t, `/\`) || t == "." || t == ".." {
		return "", fmt.Errorf("%s: %q is not a token", LatestPath(out), t)
	}
	return Attempt(out, t), nil
}

// ReadStatus reads an attempt's status.json.
func ReadStatus(attempt string) (*Status, error) {
	var st Status
	if err := ReadJSON(filepath.Join(attempt, StatusFile), &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// WriteStatus writes an attempt's status.json atomically, synced to disk
// when it says the attempt ended (any state but running). A running
// attempt's writes, its phases, are not synced: a crash then ends the
// attempt interrupted whatever they said (one torn, or never on disk, is
// censored by compare and run again by a resume, never taken for another
// attempt's), and the write that ends it carries every phase again. So a
// run waits for the sync of its last status only, not one per phase
// (each up to tens of milliseconds on a shared disk).
func WriteStatus(attempt string, st *Status) error {
	st.Schema = StatusSchema
	path := filepath.Join(attempt, StatusFile)
	write := publishFile
	if st.State != StateRunning {
		write = syncFile
	}
	return writeJSON(path, st, write)
}

// syncFile and publishFile write a file atomically, synced to disk or
// not (tests count which).
var syncFile, publishFile = atomicfile.WriteFile, atomicfile.Publish

// LatestStatus reads the newest attempt's status of an --out directory.
func LatestStatus(out string) (*Status, error) {
	dir, err := LatestAttempt(out)
	if err != nil {
		return nil, err
	}
	return ReadStatus(dir)
}

// WritePlan writes a campaign's plan.json atomically.
func WritePlan(campaign string, p *Plan) error {
	p.Schema = PlanSchema
	return WriteJSON(filepath.Join(campaign, PlanFile), p)
}

// ReadPlan reads a campaign's plan.json.
func ReadPlan(campaign string) (*Plan, error) {
	path := filepath.Join(campaign, PlanFile)
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := decodeJSON(path, data, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ReadRegistration reads one rank's registration from the namespace coord;
// ok is false when the rank has not registered.
func ReadRegistration(coord, role string, rank int) (reg Registration, ok bool, err error) {
	err = ReadJSON(RegistrationPath(coord, role, rank), &reg)
	if errors.Is(err, os.ErrNotExist) {
		return reg, false, nil
	}
	if err != nil {
		return reg, false, fmt.Errorf("registration of %s rank %d: %w", role, rank, err)
	}
	return reg, true, nil
}

// Nodes are the distinct nodes the ranks of an attempt registered from,
// sorted: the scheduler's name of the node (SLURMD_NODENAME, which a job
// can ask for) where there is one, else the host name.
func Nodes(attempt string) []string {
	files, _ := filepath.Glob(RegistrationGlob(Coord(attempt)))
	seen := map[string]bool{}
	var hosts []string
	for _, f := range files {
		var reg Registration
		if ReadJSON(f, &reg) != nil {
			continue
		}
		node := reg.Host
		if n := reg.Scheduler["SLURMD_NODENAME"]; n != "" {
			node = n
		}
		if node != "" && !seen[node] {
			seen[node] = true
			hosts = append(hosts, node)
		}
	}
	slices.Sort(hosts)
	return hosts
}
