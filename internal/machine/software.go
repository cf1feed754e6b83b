package machine

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// cudaRuntime is the CUDA toolkit where the facts are collected: the
// CUDA_VERSION NVIDIA's CUDA images set, else the toolkit's version.json;
// "" where neither says.
func cudaRuntime(getenv func(string) string, versionJSON string) string {
	if v := getenv("CUDA_VERSION"); v != "" {
		return v
	}
	data, err := os.ReadFile(versionJSON)
	if err != nil {
		return ""
	}
	var doc struct {
		CUDA struct {
			Version string `json:"version"`
		} `json:"cuda"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return ""
	}
	return doc.CUDA.Version
}

var digestPattern = lazyregexp.New(`^sha256:[0-9a-f]{64}$`)

// imageDigest is the image's digest: the one its reference pins
// (REPO@sha256:...), else the one the launcher gave (ABBENCH_IMAGE_DIGEST,
// as `docker image inspect --format '{{index .RepoDigests 0}}'` prints
// it, or bare); "" when neither is a sha256 digest.
func imageDigest(image, given string) string {
	for _, s := range []string{image, given} {
		if _, d, ok := strings.Cut(s, "@"); ok {
			s = d
		}
		if digestPattern.MatchString(s) {
			return s
		}
	}
	return ""
}

var ncclVersionLine = lazyregexp.New(`NCCL version ([0-9][0-9A-Za-z.+_-]*)`)

// NCCLVersion is the NCCL version a rank's log reports (NCCL prints
// "NCCL INFO NCCL version 2.28.9+cuda13.0" under NCCL_DEBUG=INFO or
// VERSION), or "" when it reports none; the first, when it reports several.
func NCCLVersion(log []byte) string {
	if m := ncclVersionLine.FindSubmatch(log); m != nil {
		return string(m[1])
	}
	return ""
}
