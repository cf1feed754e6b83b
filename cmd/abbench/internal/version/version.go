// Package version says which abbench this is, for --version and for every
// bundle's provenance.
package version

import "runtime/debug"

// Version is set at release build time:
//
//	go build -ldflags "-X github.com/abbench/abbench/cmd/abbench/internal/version.Version=v0.3.0" ./cmd/...
//
// Empty, the module version from build information is used, and when that
// says nothing (a plain go build of a checkout, "(devel)"), Fallback.
var Version = ""

// Fallback names a build that carries no version: the next release, marked
// as a development build, so provenance never records "(devel)".
const Fallback = "v0.3.0-dev"

// String is the version, with the VCS revision (and -dirty) when the binary
// was built from a checkout with VCS stamping.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	v := Version
	if v == "" && ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "" {
		v = Fallback
	}
	if !ok {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (" + rev + dirty + ")"
	}
	return v
}
