package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/abbench/abbench/internal/container/containertest"

	"github.com/rogpeppe/go-internal/testscript"
)

// dockerCondition answers [docker]: a docker daemon answers here. In CI
// (CI set) one must: .ci/run starts it.
func dockerCondition() (bool, error) {
	err := containertest.DockerAnswers()
	if err != nil && os.Getenv("CI") != "" {
		return false, fmt.Errorf("no docker daemon answers in CI (.ci/run starts one): %v", err)
	}
	return err == nil, nil
}

// imageTag is a tag of this script alone ($IMAGETAG): images are the
// daemon's, shared by every script and test that runs at once.
func imageTag() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// cmdStaticBin is static-bin DIR PKGDIR...: each package directory built
// with CGO_ENABLED=0 into DIR (made): binaries an image FROM scratch runs.
func cmdStaticBin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: static-bin DIR PKGDIR...")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	var pkgs []string
	for _, p := range args[1:] {
		pkgs = append(pkgs, ts.MkAbs(p))
	}
	ts.Check(containertest.StaticBuild(dir, pkgs...))
}

// cmdDockerImage is docker-image TAG DIR [VAR]: the build context DIR
// built as TAG, its image ID in $VAR; the image is removed when the
// script ends.
func cmdDockerImage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: docker-image TAG DIR [VAR]")
	}
	id, err := containertest.BuildImage(args[0], ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Defer(func() {
		if err := containertest.RemoveImages(args[0], id); err != nil {
			ts.Logf("%v", err)
		}
	})
	if len(args) == 3 {
		ts.Setenv(args[2], id)
	}
}
