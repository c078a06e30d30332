#!/usr/bin/env bash
# Re-measure the README's performance figures on this machine (run from the repository
# root; takes about 10 minutes and needs about 30 GiB of free disk for the 18 x 18 table).
# Usage: benches/figures.sh [out-dir]   (default /tmp/retro-figures; tables are deleted)
set -euo pipefail
out=${1:-/tmp/retro-figures}
mkdir -p "$out" docs
cargo build --release --quiet
retro=target/release/retro
t() { /usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" "$@"; }

echo "## contest baselines (young 14x14, 15x15; twins 4x4)"
cargo bench --quiet --bench contest_baseline -- young 14
cargo bench --quiet --bench contest_baseline -- young 15 | tail -n 1
cargo bench --quiet --bench contest_baseline -- twins 4 | tail -n 1

echo "## thread scaling"
$retro gen young 15x15 --seed 7 > "$out/young-15x15.txt"
$retro gen young 16x16 --seed 7 > "$out/young-16x16.txt"
$retro gen twins 4x4 --seed 7 --max 100 > "$out/twins-4x4.txt"
$retro bench young "$out/young-15x15.txt" --threads 1,2 --repeat 7 --markdown --plot docs/young-15x15-speedup.svg
$retro bench young "$out/young-16x16.txt" --threads 1,2 --repeat 3 --markdown
$retro bench twins "$out/twins-4x4.txt" --rows 4 --cols 4 --threads 1,2 --repeat 9 --markdown --plot docs/twins-4x4-speedup.svg

echo "## memory bound (read and write every layer once)"
cargo bench --quiet --bench memory_stream -- young 15
cargo bench --quiet --bench memory_stream -- young 16 | tail -n 2

echo "## twins 4x5 build, 2 threads"
$retro gen twins 4x5 --seed 7 --max 100 > "$out/twins-4x5.txt"
t $retro build twins "$out/twins-4x5.txt" --rows 4 --cols 5 --threads 2 -q --fresh -o "$out/twins-4x5.retro"
rm -f "$out/twins-4x5.retro"

echo "## young 16x16 .. 18x18 builds, 2 threads"
for n in 16 17 18; do
  $retro gen young ${n}x${n} --seed 7 > "$out/young-$n.txt"
  for flag in "" --compact; do
    if [ "$n" -gt 16 ] && [ -z "$flag" ]; then continue; fi
    t $retro build young "$out/young-$n.txt" --threads 2 -q --fresh $flag -o "$out/young-$n.retro"
    rm -f "$out/young-$n.retro"
  done
done

echo "## batch queries, young 10x10"
$retro gen young 10x10 --seed 3 > "$out/young-10x10.txt"
$retro build young "$out/young-10x10.txt" -q --fresh -o "$out/young-10x10.retro"
python3 - "$out/q.txt" <<'PY'
import random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    for _ in range(1_000_000):
        f.write(",".join(map(str, sorted((random.randint(0, 10) for _ in range(10)), reverse=True))) + "\n")
PY
t $retro query "$out/young-10x10.retro" --batch < "$out/q.txt" > /dev/null
