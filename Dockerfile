# abbench in a container: the static binaries, the scenarios and the
# default workload, from nothing a registry serves (FROM scratch). The
# binaries are built on the host first: scripts/docker-build.sh does both,
#   scripts/docker-build.sh --tag abbench
# (or CGO_ENABLED=0 go build -trimpath -o dist/image/ ./cmd/abbench
# ./cmd/abbench-rank ./cmd/disaggsim, then docker build -t abbench .).
# Run the quickstart: docker run --rm abbench run scenarios/quickstart.yaml
# Signatures need no ssh-keygen: abbench signs and verifies them itself
# (package sshsig), and signs with an agent's keys through SSH_AUTH_SOCK.
FROM scratch
COPY dist/image/ /usr/local/bin/
COPY scenarios /opt/abbench/scenarios
COPY testdata/prompts-256.jsonl /opt/abbench/testdata/prompts-256.jsonl
# The temporary directory runs put their scratch directories in.
WORKDIR /tmp
WORKDIR /opt/abbench
ENV PATH=/usr/local/bin
ENTRYPOINT ["abbench"]
