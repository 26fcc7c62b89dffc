# shellcheck shell=bash
# cluster.sh - starts and stops a one-node Slurm cluster in a temporary
# directory (sourced by tests/slurm_sweep.sh; usable by hand, as root:
#   . tests/slurm/cluster.sh; slurm_start /tmp/c && export SLURM_CONF=/tmp/c/slurm.conf
#   ... sbatch ...; slurm_stop /tmp/c).
# A private munged (own key and socket, run as the munge user) and
# slurmctld + slurmd (as root) on two free ports; every daemon's pid is kept
# in DIR/*.pid, and slurm_stop ends exactly those.  Needs bash (/dev/tcp).

slurm_cluster_conf_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# A TCP port nobody listens on, from FIRST upward.
slurm_free_port() {
	local p=$1
	while [ "$p" -lt $(($1 + 200)) ]; do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
		p=$((p + 1))
	done
	return 1
}

# slurm_start DIR: returns non-zero with a line on stderr when a daemon does
# not come up (DIR/log has the daemons' logs).
slurm_start() {
	local d=$1 host cpus ctld sd _
	mkdir -p "$d/state" "$d/spool" "$d/log" "$d/munge" "$d/munge-socket" || return 1
	host=$(hostname -s)
	cpus=${F8B_SLURM_CPUS:-8}
	ctld=$(slurm_free_port 26817) || return 1
	sd=$(slurm_free_port $((ctld + 1))) || return 1
	sed -e "s|@DIR@|$d|g" -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" \
		-e "s|@CTLD_PORT@|$ctld|g" -e "s|@SLURMD_PORT@|$sd|g" \
		"$slurm_cluster_conf_dir/slurm.conf.in" >"$d/slurm.conf" || return 1
	cp "$slurm_cluster_conf_dir/gres.conf" "$d/gres.conf" || return 1

	# munged wants its key private and its socket's directory open to all
	# (every user's client connects), both its own.
	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null || return 1
	chmod 700 "$d/munge" && chmod 400 "$d/munge/munge.key" && chmod 755 "$d/munge-socket" &&
		chown -R munge:munge "$d/munge" "$d/munge-socket" || return 1
	chmod 755 "$d"
	runuser -u munge -- munged --socket="$d/munge-socket/munge.socket" \
		--key-file="$d/munge/munge.key" --pid-file="$d/munge/munged.pid" \
		--log-file="$d/munge/munged.log" --seed-file="$d/munge/munged.seed" \
		>"$d/log/munged.out" 2>&1 || {
		echo "munged did not start: $(tail -n 1 "$d/log/munged.out")" >&2
		return 1
	}
	cp "$d/munge/munged.pid" "$d/munged.pid" 2>/dev/null

	export SLURM_CONF="$d/slurm.conf"
	slurmctld -D -f "$d/slurm.conf" >"$d/log/slurmctld.out" 2>&1 &
	echo $! >"$d/slurmctld.pid.own"
	slurmd -D -f "$d/slurm.conf" -N "$host" >"$d/log/slurmd.out" 2>&1 &
	echo $! >"$d/slurmd.pid.own"

	# The node is up when sinfo shows it idle (bounded: 30 s).
	for _ in $(seq 1 60); do
		if sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; then
			return 0
		fi
		sleep 0.5
	done
	echo "the test cluster did not come up: $(sinfo -h -N -o '%T %E' 2>&1 | head -1);" \
		"$(tail -2 "$d/log/slurmctld.log" "$d/log/slurmd.log" 2>/dev/null | tr '\n' ' ')" >&2
	return 1
}

# slurm_stop DIR: ends the daemons slurm_start started, by pid.
slurm_stop() {
	local d=$1 f pid _
	for f in slurmd.pid.own slurmctld.pid.own munged.pid; do
		[ -s "$d/$f" ] || continue
		pid=$(cat "$d/$f")
		kill "$pid" 2>/dev/null || continue
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null
	done
	return 0
}
