#!/usr/bin/env bash
# The MPI build against one process, in one run, from the repository
# root:
#   - one rank of one thread against one process of one thread (young 16x16, twins 4x5,
#     connect 6x4): time ratio, target at most 1.15;
#     and the moving phase of Nine Men's Morris with six stones each (a fixpoint);
#   - two ranks of one thread against one process of two threads (young 16x16, connect
#     5x5: speed ratio, target at least 0.85; morris nine stones=6 moving: at least 0.75);
#   - bytes exchanged per position and the largest rank's layer buffers on 1, 2, 4 and 8
#     ranks (young 16x16, twins 4x5 with --bytes; connect 6x4);
#   - rank 0's split (compute, exchange, write, checksum and seal) of each MPI run.
# Each pair of commands runs in turn (A B A B ...) RUNS times; the script prints each
# side's min and median wall seconds and the ratio of the medians.
#
# Usage: benches/mpi_ratios.sh [RUNS] [OUT-DIR]   (defaults 3, /tmp/retro-mpi-ratios)
# RETRO=path/to/retro uses that binary instead of building `--release --features mpi`.
# Needs mpirun (Open MPI); about 20 minutes at RUNS=3 on 2 cores; tables are deleted.
set -euo pipefail
runs=${1:-3}
out=${2:-/tmp/retro-mpi-ratios}
mkdir -p "$out"
if [ -z "${RETRO:-}" ]; then
  cargo build --release --quiet --features mpi --target-dir target/mpi
  RETRO=target/mpi/release/retro
fi
# One box: shared memory only; a rank waiting in a collective yields its core.
export OMPI_MCA_btl=self,vader OMPI_MCA_mpi_yield_when_idle=1
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
"$RETRO" --version

"$RETRO" gen young 16x16 --seed 7 > "$out/y16.txt"
"$RETRO" gen twins 4x5 --seed 7 > "$out/t45.txt"
"$RETRO" gen connect 6x4 --seed 7 > "$out/c64.txt"
"$RETRO" gen connect 5x5 --seed 7 > "$out/c55.txt"
table="$out/bench.tbl"

# Wall seconds of one command; its stdout (the summary) and stderr (rank 0's split,
# unless QUIET) go to $out/last.out and $out/last.err.
QUIET=-q
wall() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" $QUIET --fresh -o "$table" > "$out/last.out" 2> "$out/last.err"
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

# min and median of the numbers on stdin
stats() { sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f %.2f\n", v[1], m}'; }

# pair NAME "A command" "B command": A and B in turn, RUNS times each.
pair() {
  local name=$1 a=$2 b=$3 ta=() tb=() i
  for ((i = 0; i < runs; i++)); do
    ta+=("$(wall $a)")
    tb+=("$(wall $b)")
  done
  read -r amin amed < <(printf '%s\n' "${ta[@]}" | stats)
  read -r bmin bmed < <(printf '%s\n' "${tb[@]}" | stats)
  printf '%-34s A min %7.2f med %7.2f | B min %7.2f med %7.2f | A/B %.3f\n' \
    "$name" "$amin" "$amed" "$bmin" "$bmed" "$(echo "$amed / $bmed" | bc -l)"
}

mpi() { echo "mpirun --oversubscribe -np $1 $RETRO build --threads 1"; }

echo "## one rank x 1 thread (A) against one process x 1 thread (B): time, target <= 1.15"
pair "young 16x16" "$(mpi 1) young $out/y16.txt" "$RETRO build --threads 1 young $out/y16.txt"
pair "twins 4x5" "$(mpi 1) twins $out/t45.txt" "$RETRO build --threads 1 twins $out/t45.txt"
# An MPI build stores every position: connect's are compared unfolded on both sides.
pair "connect 6x4" "$(mpi 1) --no-fold connect $out/c64.txt" "$RETRO build --threads 1 --no-fold connect $out/c64.txt"
# Layers solved to a fixpoint (the moving phase of Nine Men's Morris with six stones each).
pair "morris nine stones=6 moving" "$(mpi 1) morris nine-stones=6-moving" "$RETRO build --threads 1 morris nine-stones=6-moving"

echo "## two ranks x 1 thread (A) against one process x 2 threads (B): speed = B/A, target >= 0.85"
pair "young 16x16" "$(mpi 2) young $out/y16.txt" "$RETRO build --threads 2 young $out/y16.txt"
pair "connect 5x5" "$(mpi 2) --no-fold connect $out/c55.txt" "$RETRO build --threads 2 --no-fold connect $out/c55.txt"
pair "morris nine stones=6 moving" "$(mpi 2) morris nine-stones=6-moving" "$RETRO build --threads 2 morris nine-stones=6-moving"

echo "## per rank count: the summary line and rank 0's split (one run each)"
QUIET=
for board in "young $out/y16.txt" "twins $out/t45.txt" "--no-fold connect $out/c64.txt"; do
  for np in 1 2 4 8; do
    s=$(wall $(mpi $np) $board)
    echo "$board, $np ranks: $s s"
    sed -e 's/^.*positions in/  positions in/' "$out/last.out"
    grep -v '^estimate' "$out/last.err" | sed -e 's/^/  /' || true
  done
done
rm -f "$table"
