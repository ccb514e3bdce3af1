#!/usr/bin/env bash
# Fills device-run/ (git-ignored) with what bench/gpu/run_all.sh needs on a GPU machine that has
# no Boost, no Catch2 and no network: the binaries of a build made here, the shared libraries they
# need beyond the C/C++ runtime, and a copy of the ../shared programs. See bench/README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/gpu/pack.sh [BUILD_DIR] [--shared DIR] [--kit DIR] [--limit-mib N] [--nesl PATH]

  BUILD_DIR        the CMake build to take binaries from (default: build-gpu); configure it with
                   -DBoost_USE_STATIC_LIBS=ON so vinterp needs no Boost on the device
  --shared DIR     the shared corpus (default: ../shared beside the repository)
  --kit DIR        where to put the kit (default: device-run/ in the repository; emptied first)
  --nesl PATH      our NESL compiler (default: BUILD_DIR/nesl/nesl, else build/nesl/nesl): it
                   compiles the corpus and test/nesl/programs into nesl/ for run_all.sh's nesl stage
  --limit-mib N    what may travel with the working tree (default 64); the kit plus the tracked
                   and untracked-not-ignored files must stay under it
EOF
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=build-gpu
shared_dir="$repo_root/../shared"
kit="$repo_root/device-run"
limit_mib=64
nesl=""

while [[ $# -gt 0 ]]; do
  case "$1" in
    --shared) shared_dir=$2; shift 2 ;;
    --kit) kit=$2; shift 2 ;;
    --limit-mib) limit_mib=$2; shift 2 ;;
    --nesl) nesl=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "pack.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done
[[ "$build_dir" = /* ]] || build_dir="$repo_root/$build_dir"
[[ -d "$build_dir" ]] || { echo "pack.sh: no build directory $build_dir" >&2; exit 1; }
[[ "$kit" = /* ]] || kit="$PWD/$kit"
case "$kit" in
  "$repo_root"/device-run|"$repo_root"/device-run/*|/tmp/*) ;;
  *) echo "pack.sh: refusing to empty $kit (use device-run/ or a folder under /tmp)" >&2; exit 2 ;;
esac

rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib" "$kit/shared"
notes=()

limit_bytes=$((limit_mib * 1024 * 1024))
tree_bytes() {  # what travels besides the kit: tracked and untracked-not-ignored files
  (cd "$repo_root" && git ls-files -z --cached --others --exclude-standard |
     xargs -0 -r stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
}
tree=$(tree_bytes)
# Copies $1 (a file or folder) into $kit/$2 if the kit and the working tree stay under the limit,
# with 1 MiB to spare for what the working tree gains meanwhile; notes what did not fit.
add_if_fits() {
  local size used
  size=$(du -sb "$1" | cut -f1)
  used=$(du -sb "$kit" | cut -f1)
  if (( tree + used + size + 1048576 > limit_bytes )); then
    notes+=("not packed (over the ${limit_mib} MiB limit): $1, $((size / 1024)) KiB")
    return 1
  fi
  cp -r "$1" "$kit/$2"
}

# Binaries, most needed first, so that what does not fit is the least needed. Missing required
# ones fail the pack; missing optional ones are noted.
binary() {  # binary PATH-IN-BUILD required|optional
  local src="$build_dir/$1"
  if [[ -x "$src" && -f "$src" ]]; then
    add_if_fits "$src" bin/ || [[ "$2" == optional ]] || { echo "pack.sh: no room for $src" >&2; exit 1; }
  elif [[ "$2" == required ]]; then
    echo "pack.sh: $src is missing; build it first (cmake --build $build_dir --target $(basename "$1"))" >&2
    exit 1
  else
    notes+=("not packed (not built): $1")
  fi
}
binary vinterp/vinterp required
binary test/corpus/corpus_runner required
# The conformance suites of the real GPU backend (any name with cuda but not emulat...).
suites=()
for suite in "$build_dir"/test/cvl/cvl_conformance*; do
  [[ -x "$suite" && -f "$suite" ]] && suites+=("${suite#"$build_dir"/}")
done
for suite in "${suites[@]}"; do
  [[ "$suite" == *cuda* && "$suite" != *emulat* ]] && binary "$suite" optional
done
binary bench/cvl_microbench optional

# Shared libraries the binaries load that a bare machine may lack. The C runtime, libstdc++ and
# libgcc_s are on every machine with a compiler; the CUDA driver (libcuda, libnvidia-*) must come
# from the device itself, never from here; the CUDA toolkit's libraries (libnvrtc is 100 MiB) are
# on the device too (run_all.sh finds them there).
declare -A libs=()
for bin in "$build_dir/vinterp/vinterp" "$build_dir/test/corpus/corpus_runner" "$build_dir/bench/cvl_microbench" \
           "${suites[@]/#/$build_dir/}"; do
  [[ -f "$bin" ]] || continue
  while read -r name path; do
    [[ -n "$path" && -f "$path" ]] || continue
    case "$name" in
      linux-vdso*|ld-linux*|libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|libstdc++*|libgcc_s*) ;;
      libcuda.so*|libnvidia*) ;;
      libnvrtc*|libcudart*|libnvJitLink*|libcublas*|libcufft*|libcurand*|libcusparse*|libcusolver*) ;;
      *) [[ "$path" == /usr/local/cuda* ]] || libs["$name"]="$path" ;;
    esac
  done < <(ldd "$bin" 2>/dev/null | awk '$2 == "=>" {print $1, $3}')
done
for name in "${!libs[@]}"; do
  cp -L "${libs[$name]}" "$kit/lib/$name"
done
if ldd "$kit/bin/vinterp" | grep -q boost; then
  notes+=("vinterp links Boost dynamically (its .so is in lib/); -DBoost_USE_STATIC_LIBS=ON avoids that")
fi

# The shared programs, the smaller directories first so that the largest is the one left out.
if [[ -d "$shared_dir" ]]; then
  cp "$shared_dir/README.md" "$kit/shared/" 2>/dev/null || true
  for sub in corpus-hand corpus regress neslgpu-bench; do
    if [[ -d "$shared_dir/$sub" ]]; then add_if_fits "$shared_dir/$sub" shared/ || true
    else notes+=("not packed: $shared_dir/$sub does not exist"); fi
  done
else
  notes+=("not packed: no shared corpus at $shared_dir (use --shared DIR)")
fi

# Our compiler's VCODE of the corpus and of our own NESL programs, with their expected outputs.
if [[ -z "$nesl" ]]; then
  for candidate in "$build_dir/nesl/nesl" "$repo_root/build/nesl/nesl"; do
    [[ -x "$candidate" ]] && nesl=$candidate && break
  done
fi
if [[ -x "$nesl" ]]; then
  mkdir -p "$kit/nesl"
  for source in "$shared_dir/corpus" "$repo_root/test/nesl/programs"; do
    name=$(basename "$source")
    rc=0
    "$repo_root/test/nesl/compile_dir.sh" "$nesl" "$kit/nesl/$name" "$source" > "$kit/nesl/$name.log" 2>&1 || rc=$?
    [[ $rc -eq 0 ]] || notes+=("nesl/$name: compile_dir.sh exit $rc ($(head -c 200 "$kit/nesl/$name.log"))")
  done
else
  notes+=("not packed: nesl/ (no nesl binary; build the nesl target or pass --nesl)")
fi

# What helps but is not needed on the device: fcode-opt, the cpu and emulated suites (for a
# rehearsal of run_all.sh with BACKEND=cpu or cuda-emulated).
binary fcode-opt/fcode-opt optional
for suite in "${suites[@]}"; do
  [[ "$suite" == *cuda* && "$suite" != *emulat* ]] || binary "$suite" optional
done
[[ ${#suites[@]} -gt 0 ]] || notes+=("not packed: no test/cvl/cvl_conformance* binary in $build_dir")
ls "$kit/bin" | grep -q cuda || notes+=("no CUDA conformance suite in the kit: was $build_dir configured with CUDA (-DNESL_CUDA=ON)?")
"$kit/bin/vinterp" --version | grep -qw cuda || notes+=("this vinterp has no cuda backend: $("$kit/bin/vinterp" --version)")

used=$(du -sb "$kit" | cut -f1)
{
  echo "kit made $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build_dir"
  echo "git: $(cd "$repo_root" && git rev-parse --short HEAD)$(cd "$repo_root" && git diff --quiet HEAD -- . || echo ' (with uncommitted changes)')"
  echo "vinterp: $("$kit/bin/vinterp" --version 2>&1 | head -1)"
  for note in "${notes[@]}"; do echo "note: $note"; done
} > "$kit/MANIFEST.txt"
(cd "$kit" && find . -type f | sort | xargs ls -l | awk '{printf "%10d %s\n", $5, $9}') >> "$kit/MANIFEST.txt"

echo "pack.sh: kit in $kit"
du -sh "$kit"/bin "$kit"/lib "$kit"/shared
awk -v k="$used" -v t="$tree" -v l="$limit_mib" 'BEGIN {
  printf "pack.sh: kit %.1f MiB + working tree %.1f MiB = %.1f MiB of %s MiB\n", k / 1048576, t / 1048576, (k + t) / 1048576, l }'
for note in "${notes[@]}"; do echo "pack.sh: $note"; done
if (( used + tree > limit_bytes )); then
  echo "pack.sh: over the limit: the device tool would refuse this working tree" >&2
  exit 1
fi
