#!/bin/sh
# The broken variant of server.sh: the server is started with a fixed fsync
# policy and ignores the arm's (the failure of a treatment that never
# reached the system). The mode line still comes from CONFIG GET, so the
# mismatch is caught before the client sends a request.
REDIS_APPENDFSYNC=everysec exec sh "$(dirname "$0")/server.sh" "$@"
