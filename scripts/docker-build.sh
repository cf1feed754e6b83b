#!/usr/bin/env bash
# The container image of abbench, built with no registry at hand: the
# static binaries (CGO_ENABLED=0) are built here into dist/image/, and the
# Dockerfile's one stage starts FROM scratch and copies them in.
#   scripts/docker-build.sh [DOCKER-BUILD-OPTION...]   for example --tag abbench
# VERSION (default v0.3.0-dev) is the version the binaries report.
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist/image
rm -rf "$out"
CGO_ENABLED=0 go build -trimpath \
	-ldflags "-s -w -X github.com/abbench/abbench/cmd/abbench/internal/version.Version=${VERSION:-v0.3.0-dev}" \
	-o "$out/" ./cmd/abbench ./cmd/abbench-rank ./cmd/disaggsim
docker build "$@" .
