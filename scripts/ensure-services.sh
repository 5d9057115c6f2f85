#!/usr/bin/env bash
# Makes sure the machine's PostgreSQL and Redis answer on loopback, starting them if they are
# installed but stopped. Tests run against these real servers.
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  echo "PostgreSQL is not answering on 127.0.0.1:5432; starting it" >&2
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL did not come up (is it installed? apt-get install postgresql)" >&2; exit 1; }
fi

if ! redis_up; then
  echo "Redis is not answering on 127.0.0.1:6379; starting it" >&2
  if command -v redis-server >/dev/null; then
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  fi
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  redis_up || { echo "Redis did not come up (is it installed? apt-get install redis-server)" >&2; exit 1; }
fi

# The test database named in the tests' default URL must exist.
if ! psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null 2>&1; then
  psql -h 127.0.0.1 -U postgres -d postgres -c 'CREATE DATABASE test' >/dev/null
fi
echo "PostgreSQL and Redis are up"
