#!/bin/sh
# with-redis.sh - runs COMMAND with a private Redis server.
#
# SPDX-License-Identifier: Apache-2.0
#
# Usage: with-redis.sh COMMAND... The server listens on a free port of
# 127.0.0.1, saves nothing, and is stopped when COMMAND ends; COMMAND sees
# the port in REDIS_PORT and its exit status is the script's.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
  --daemonize no > /dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  if /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
    break
  fi
  sleep 0.2
done
REDIS_PORT=$port "$@"
