#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the ledger tests (ledger/postgres).
#
#   scripts/postgres.sh start        create a cluster in a new temp folder, start it
#                                    on 127.0.0.1 at a free port, print its env lines
#   scripts/postgres.sh env [DIR]    print the env lines of the cluster in DIR
#   scripts/postgres.sh stop [DIR]   stop the cluster and remove DIR
#   scripts/postgres.sh crash [DIR]  stop the server at once (pg_ctl -m immediate: no
#                                    shutdown checkpoint, WAL recovery on the next start)
#   scripts/postgres.sh restart [DIR] start the server in DIR again, on the same port
#
# DIR defaults to $EFFECTLINT_TEST_POSTGRES_DIR. The env lines are KEY=value, one a
# line, to export as they are (no quoting):
#
#   EFFECTLINT_TEST_POSTGRES          postgres:// URL of the superuser "postgres"
#   EFFECTLINT_TEST_POSTGRES_DIR      the cluster's folder (for stop, crash, restart)
#   EFFECTLINT_TEST_POSTGRES_PGDATA   its data directory
#   EFFECTLINT_TEST_POSTGRES_PGCTL    the pg_ctl that runs it
#   EFFECTLINT_TEST_POSTGRES_OSUSER   the OS user the server runs as
#
# The server refuses to run as root: as root the cluster belongs to $PG_OSUSER, or
# the "postgres" user Debian's package creates, or a system user effectlint-pg made
# here. Authentication is trust, on loopback only (127.0.0.1 and a Unix socket in
# DIR); fsync and synchronous_commit keep their defaults (on). The binaries are
# $PG_BIN, or the newest /usr/lib/postgresql/*/bin, or the initdb on PATH.
set -euo pipefail

die() { echo "postgres.sh: $*" >&2; exit 1; }

bindir() {
	if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
	if command -v initdb > /dev/null; then dirname "$(command -v initdb)"; return; fi
	die "no PostgreSQL binaries (apt-get install postgresql, or set PG_BIN)"
}

osuser() {
	if [ "$(id -u)" -ne 0 ]; then id -un; return; fi
	if [ -n "${PG_OSUSER:-}" ]; then echo "$PG_OSUSER"; return; fi
	if id postgres > /dev/null 2>&1; then echo postgres; return; fi
	if ! id effectlint-pg > /dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin effectlint-pg > /dev/null ||
			die "cannot create the system user effectlint-pg"
	fi
	echo effectlint-pg
}

# as USER CMD...: run CMD as USER (from /, which every user can enter).
as() {
	local user=$1; shift
	if [ "$(id -un)" = "$user" ]; then
		(cd / && "$@")
	else
		(cd / && runuser -u "$user" -- "$@")
	fi
}

dir_of() {
	local dir=${1:-${EFFECTLINT_TEST_POSTGRES_DIR:-}}
	[ -n "$dir" ] || die "which cluster? give its folder or set EFFECTLINT_TEST_POSTGRES_DIR"
	[ -f "$dir/env" ] || die "$dir is not a cluster this script made (no $dir/env)"
	echo "$dir"
}

# value KEY DIR: one value from the cluster's env file.
value() { sed -n "s/^$1=//p" "$2/env"; }

port_in_use() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

start() {
	local bin user dir port url tries
	bin=$(bindir)
	user=$(osuser)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/effectlint-pg.XXXXXX")
	chmod 700 "$dir"
	[ "$(id -un)" = "$user" ] || chown "$user" "$dir"
	as "$user" test -w "$dir" || { rm -rf "$dir"; die "$user cannot reach $dir: set TMPDIR to a folder every user can enter"; }
	if ! as "$user" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync > "$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2; rm -rf "$dir"; die "initdb failed"
	fi
	printf '%s\n' 'local all all trust' 'host all all 127.0.0.1/32 trust' > "$dir/data/pg_hba.conf"
	cat >> "$dir/data/postgresql.conf" <<-EOF

		# scripts/postgres.sh: a throw-away cluster for the ledger tests
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$dir'
		max_connections = 200
		fsync = on
		synchronous_commit = on
	EOF
	for tries in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 30000))
		port_in_use "$port" && continue
		echo "port = $port" >> "$dir/data/postgresql.conf"
		if as "$user" "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start > /dev/null 2>&1; then
			url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
			cat > "$dir/env" <<-EOF
				EFFECTLINT_TEST_POSTGRES=$url
				EFFECTLINT_TEST_POSTGRES_DIR=$dir
				EFFECTLINT_TEST_POSTGRES_PGDATA=$dir/data
				EFFECTLINT_TEST_POSTGRES_PGCTL=$bin/pg_ctl
				EFFECTLINT_TEST_POSTGRES_OSUSER=$user
			EOF
			as "$user" "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30 || { tail -n 20 "$dir/postgres.log" >&2; die "the server does not answer"; }
			cat "$dir/env"
			return
		fi
	done
	tail -n 20 "$dir/postgres.log" >&2
	rm -rf "$dir"
	die "the server did not start (tried $tries ports)"
}

case "${1:-}" in
start) start ;;
env) cat "$(dir_of "${2:-}")/env" ;;
stop)
	dir=$(dir_of "${2:-}")
	as "$(value EFFECTLINT_TEST_POSTGRES_OSUSER "$dir")" "$(value EFFECTLINT_TEST_POSTGRES_PGCTL "$dir")" \
		-D "$dir/data" -m fast -w stop > /dev/null 2>&1 || true
	rm -rf "$dir"
	;;
crash)
	dir=$(dir_of "${2:-}")
	as "$(value EFFECTLINT_TEST_POSTGRES_OSUSER "$dir")" "$(value EFFECTLINT_TEST_POSTGRES_PGCTL "$dir")" \
		-D "$dir/data" -m immediate -w stop > /dev/null
	;;
restart)
	dir=$(dir_of "${2:-}")
	as "$(value EFFECTLINT_TEST_POSTGRES_OSUSER "$dir")" "$(value EFFECTLINT_TEST_POSTGRES_PGCTL "$dir")" \
		-D "$dir/data" -l "$dir/postgres.log" -w -t 60 start > /dev/null ||
		{ tail -n 20 "$dir/postgres.log" >&2; die "the server did not start again"; }
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
