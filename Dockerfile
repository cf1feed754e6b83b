# abbench in a container: the static binaries, the scenarios and the
# default workload. Build: docker build -t abbench --build-arg VERSION=vX.Y.Z .
# Run the quickstart: docker run --rm abbench run scenarios/quickstart.yaml
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=v0.3.0-dev
RUN CGO_ENABLED=0 go build -trimpath \
	-ldflags "-s -w -X github.com/abbench/abbench/cmd/abbench/internal/version.Version=${VERSION}" \
	-o /out/ ./cmd/abbench ./cmd/abbench-rank ./cmd/disaggsim

FROM debian:bookworm-slim
# ssh-keygen verifies bundle signatures; ssh-agent signs with agent keys.
RUN apt-get update && apt-get install -y --no-install-recommends openssh-client ca-certificates \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /usr/local/bin/
COPY scenarios /opt/abbench/scenarios
COPY testdata/prompts-256.jsonl /opt/abbench/testdata/prompts-256.jsonl
WORKDIR /opt/abbench
ENTRYPOINT ["abbench"]
