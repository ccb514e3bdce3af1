#!/usr/bin/env bash
# nesl's command line and settings as a user meets them: a bad --backend or limit is a usage
# error (status 2) before anything compiles; a directory or a missing file is named; `-` reads
# the program from standard input; --vcode -O writes fcode-opt's FCODE; --version,
# --max-memory, --max-call-depth and --sandbox; and `set`/`show` in a session and in a file
# refuse what they cannot take when they are given it, keeping the setting's earlier value.
# usage: command_line.sh NESL FCODE_OPT
set -uo pipefail
nesl=$1 fcode_opt=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs `nesl ARGS...` (standard input from $input, empty by default), keeping stdout, stderr and
# the status apart.
input=/dev/null
run() {
  "$nesl" "$@" <"$input" >out 2>err
  status=$?
}
# expect STATUS STDOUT STDERR WHAT: the last run's exact outputs.
expect() {
  [ "$status" = "$1" ] || fail "$4: status $status, expected $1 (stderr: $(cat err))"
  [ "$(cat out)" = "$2" ] || fail "$4: stdout was:"$'\n'"$(cat out)"$'\n'"expected:"$'\n'"$2"
  [ "$(cat err)" = "$3" ] || fail "$4: stderr was:"$'\n'"$(cat err)"$'\n'"expected:"$'\n'"$3"
}

# This build's backends, as --version lists them: "nesl 0.1.0 (backends: cpu cuda-emulated)".
run --version
version=$(cat out)
[[ "$version" =~ ^nesl\ [0-9]+\.[0-9]+\.[0-9]+\ \(backends:\ cpu( [a-z-]+)*\)$ ]] ||
  fail "--version printed '$version'"
backends=$(sed -n 's/.*(backends: \(.*\))$/\1/p' <<<"$version")
[ -n "$backends" ] || backends=cpu  # to go on with the other checks
read -ra names <<<"$backends"
listed=${names[0]}  # "cpu, cuda or mpi"
for ((i = 1; i < ${#names[@]}; i++)); do
  if ((i + 1 == ${#names[@]})); then listed+=" or ${names[i]}"; else listed+=", ${names[i]}"; fi
done

echo 'function sq(x) = x * x;' >prog.nesl
echo 'sq(3);' >>prog.nesl

# A backend this build does not have: one usage error, before anything is compiled.
run --backend foo prog.nesl
expect 2 "" "nesl: --backend expects $listed, not 'foo'" "--backend foo"
run --max-memory 0 prog.nesl
expect 2 "" "nesl: --max-memory must be a positive size like 512M, 8G or 1000000 (got '0')" "--max-memory 0"
run --max-call-depth 0 prog.nesl
expect 2 "" "nesl: --max-call-depth must be 1 or more" "--max-call-depth 0"
run --check -O prog.nesl
[ "$status" = 2 ] && grep -qx 'nesl: -O goes with running a program or with --vcode' err ||
  fail "--check -O: status $status, $(head -1 err)"

# A directory or a file that is not there: named, and status 1.
mkdir dir
run dir
expect 1 "" "nesl: error: cannot read dir: it is a directory" "nesl DIR"
run --check dir
expect 1 "" "nesl: error: cannot read dir: it is a directory" "nesl --check DIR"
run no_such.nesl
expect 1 "" "nesl: error: cannot read no_such.nesl: No such file or directory" "a missing file"

# `-`: the program from standard input, run as a file (its errors make the status 1).
input=prog.nesl
run -
expect 0 "sq = fn : a -> a :: (a in number)
it = 9 : int" "" "nesl -"
run --check -
expect 0 "sq = fn : a -> a :: (a in number)
it : int" "" "nesl --check -"
printf 'x = 1;\nx + "a";\n' >bad.nesl
input=bad.nesl
run -
[ "$status" = 1 ] && grep -q '^stdin:2:3: error: ' err || fail "nesl - with an error: status $status, $(cat err)"
input=/dev/null

# --vcode -O: the FCODE fcode-opt writes for the VCODE --vcode writes, which drops comments, then
# the same comment of result types as the VCODE's.
run --vcode prog.nesl
cp out prog.vcode
run --vcode -O prog.nesl
[ "$status" = 0 ] || fail "--vcode -O: status $status: $(cat err)"
"$fcode_opt" prog.vcode >expected.fcode || fail "fcode-opt failed"
sed -n '/^{ NESL result types/,$p' prog.vcode >>expected.fcode
grep -q '^  it : int$' expected.fcode || fail "--vcode wrote no result types: $(cat prog.vcode)"
cmp -s out expected.fcode || fail "--vcode -O differs from fcode-opt's output"
cmp -s out prog.vcode && fail "--vcode -O wrote the VCODE unoptimized"
run --vcode -O --source-map map prog.nesl
[ "$status" = 2 ] || fail "--vcode -O --source-map: status $status"

# The run's limits, as vinterp's (the scan writes the million 1s, which a sum alone never would).
cat >limits.nesl <<'EOF'
function deep(n) = if n == 0 then 0 else 1 + deep(n - 1);
deep(50);
sum(plus_scan(dist(1, 1000000)));
EOF
run --max-call-depth 10 --max-memory 1M limits.nesl
[ "$status" = 1 ] || fail "the limits: status $status"
grep -q 'RUNTIME ERROR: Recursion deeper than 10 calls' err || fail "--max-call-depth 10: $(cat err)"
grep -q 'RUNTIME ERROR: Out of memory: .* the memory limit, 1048576 bytes' err || fail "--max-memory 1M: $(cat err)"
run limits.nesl
[ "$status" = 0 ] || fail "without limits: status $status: $(cat out err)"

# --sandbox: shell_command and files are refused, when running and when --vcode runs bindings.
cat >sandboxed.nesl <<'EOF'
shell_command("echo escaped > escaped.txt", "");
write_string_to_file("written", "written.txt");
1 + 1;
EOF
run --sandbox sandboxed.nesl
[ "$status" = 1 ] || fail "--sandbox: status $status"
[ "$(grep -c 'in a sandboxed run (--sandbox)' err)" = 2 ] || fail "--sandbox: $(cat err)"
grep -qx 'it = 2 : int' out || fail "--sandbox: the last form did not run: $(cat out)"
[ -e escaped.txt ] || [ -e written.txt ] && fail "--sandbox: a file was written"
echo 'x = shell_command("echo escaped > escaped.txt", ""); x;' >binding.nesl
run --vcode --sandbox binding.nesl
[ "$status" = 1 ] && [ ! -e escaped.txt ] || fail "--vcode --sandbox ran shell_command (status $status)"

# Settings in a session: refused when given, and the earlier value stays.
cat >settings.in <<'EOF'
set backend gpu;
set threads -1;
set threads 99999999999;
set threads two;
set print_length -5;
set backend;
set foo 3;
set;
show foo;
show;
set threads 1;
show status;
1 + 1;
EOF
input=settings.in
run
expect 0 "Error at top level.  
backend 'gpu' is not available in this build (available: $backends)
Error at top level.  
The argument to SET threads must be an integer, at least 0.
Error at top level.  
The argument to SET threads must be an integer, at least 0.
Error at top level.  
The argument to SET threads must be an integer, at least 0.
Error at top level.  
The argument to SET print_length must be an integer, at least 0.
Error at top level.  
set backend needs a value: set backend NAME; (this build has $backends)
Error at top level.  
There is no setting foo: set takes arg_check on|off, backend NAME, threads N, optimize on|off or print_length N.
Error at top level.  
set takes a setting and its value: arg_check on|off, backend NAME, threads N, optimize on|off or print_length N.
Error at top level.  
show takes status: show status; prints the settings.
Error at top level.  
show takes status: show status; prints the settings.
arg_check on
backend cpu
threads 1
optimize off
print_length 100
it = 2 : int" "" "settings in a session"
# A GPU backend on a machine without a GPU is refused at the `set` too (where one starts, it is taken).
if [[ " $backends " == *" cuda "* ]]; then
  run --backend cuda prog.nesl
  if [ "$status" = 1 ] && grep -q "^nesl: backend 'cuda' cannot start: " err; then
    printf 'set backend cuda;\nshow status;\n2;\n' >cuda.in
    input=cuda.in
    run
    grep -q "^backend 'cuda' cannot start: " out && grep -qx 'backend cpu' out && grep -qx 'it = 2 : int' out ||
      fail "set backend cuda without a GPU: $(cat out)"
    input=/dev/null
  fi
fi
# Settings in a file: the same refusals, and the file's status is 1.
printf 'set threads -1;\nset backend;\n1 + 1;\n' >settings.nesl
input=/dev/null
run settings.nesl
expect 1 "Error at top level.  
The argument to SET threads must be an integer, at least 0.
Error at top level.  
set backend needs a value: set backend NAME; (this build has $backends)
it = 2 : int" "" "settings in a file"

[ "$failures" = 0 ] || exit 1
echo "command line: every check passed"
