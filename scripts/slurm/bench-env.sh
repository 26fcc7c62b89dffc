# shellcheck shell=bash
# bench-env.sh - the environment every f8bench batch script runs in
# (sourced by gemm-sweep.sbatch, merge.sbatch, ceilings.sbatch and
# allgather.sbatch; edit it, or set the variables below, per cluster).
#
#   F8B_MODULES    modules to load first when `module` exists, e.g.
#                  "cuda/13.0 openmpi/4.1 hdf5/1.10" (default: none)
#   F8BENCH        the f8bench to run (default: f8bench on PATH, else the
#                  one in $F8B_BUILD_DIR, the submit dir or its _b/)
#   F8B_OUT_DIR    where results and reports go (default: the submit dir)
#   F8B_SRUN_MPI   srun's --mpi= for multi-rank jobs (default: pmix for
#                  Open MPI when srun has it, else pmi2); "mpiexec" makes
#                  f8b_launch use mpiexec instead of srun
#   NCCL_*         exported as set; f8bench records every NCCL_* variable in
#                  the results file's provenance (attribute nccl_env)
#   OMP_NUM_THREADS, OMP_PROC_BIND, OMP_PLACES
#                  default to the job's CPUs per task, close, cores: each
#                  rank's host threads stay on the cores Slurm gave it.
# Defines f8b_launch CMD... (every rank of the job runs CMD) and f8b_log.

f8b_log() { echo "[f8b $(date -u +%H:%M:%S) ${SLURM_JOB_ID:-nojob}${SLURM_ARRAY_TASK_ID:+_$SLURM_ARRAY_TASK_ID}] $*" >&2; }

if [ -n "${F8B_MODULES:-}" ] && command -v module >/dev/null 2>&1; then
	# shellcheck disable=SC2086 # a list of module names
	module load $F8B_MODULES || { f8b_log "module load $F8B_MODULES failed"; exit 1; }
fi

: "${F8B_OUT_DIR:=${SLURM_SUBMIT_DIR:-$PWD}}"
if [ -z "${F8BENCH:-}" ]; then
	F8BENCH=$(command -v f8bench || true)
	for b in ${F8B_BUILD_DIR:+"$F8B_BUILD_DIR"} "${SLURM_SUBMIT_DIR:-$PWD}" "${SLURM_SUBMIT_DIR:-$PWD}/_b"; do
		[ -z "$F8BENCH" ] && [ -x "$b/f8bench" ] && F8BENCH="$b/f8bench"
	done
fi
if [ ! -x "$F8BENCH" ]; then
	f8b_log "no f8bench at '$F8BENCH': put it on PATH or set F8BENCH"
	exit 1
fi
export F8BENCH F8B_OUT_DIR
mkdir -p "$F8B_OUT_DIR" || exit 1

export OMP_NUM_THREADS="${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}"
export OMP_PROC_BIND="${OMP_PROC_BIND:-close}"
export OMP_PLACES="${OMP_PLACES:-cores}"
# NCCL: nothing is forced; the job inherits the site's and the submitter's
# NCCL_* and f8bench records them.  Site defaults go here, e.g.
#   export NCCL_IB_HCA="${NCCL_IB_HCA:-mlx5}"

# srun's PMI for the MPI f8bench was built with: Open MPI speaks PMIx,
# MPICH PMI-2.  srun --mpi=list says what this Slurm has.
if [ -z "${F8B_SRUN_MPI:-}" ]; then
	F8B_SRUN_MPI=pmi2
	if mpiexec --version 2>&1 | grep -qi -e "open mpi" -e openrte &&
		srun --mpi=list 2>&1 | grep -qw pmix; then
		F8B_SRUN_MPI=pmix
	fi
fi

# f8b_launch CMD...: one rank per task of the job.
f8b_launch() {
	if [ "$F8B_SRUN_MPI" = mpiexec ]; then
		local extra=()
		mpiexec --version 2>&1 | grep -qi -e "open mpi" -e openrte && [ "$(id -u)" = 0 ] &&
			extra=(--allow-run-as-root)
		mpiexec "${extra[@]}" -n "${SLURM_NTASKS:-1}" "$@"
	else
		srun --mpi="$F8B_SRUN_MPI" "$@"
	fi
}

f8b_log "f8bench: $F8BENCH ($("$F8BENCH" --version 2>/dev/null)); out: $F8B_OUT_DIR;" \
	"srun --mpi=$F8B_SRUN_MPI; OMP_NUM_THREADS=$OMP_NUM_THREADS;" \
	"NCCL: $(env | grep '^NCCL_' | tr '\n' ' ')"
