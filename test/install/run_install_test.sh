#!/bin/sh
# The installation, as a user meets it (CTest label `install`; test/install/CMakeLists.txt):
#
#   run_install_test.sh tree     cmake --install into a scratch prefix; the files are there, the
#                                installed vinterp runs an example, the man pages format cleanly
#   run_install_test.sh consumer a project of its own (consumer/) finds the package with
#                                find_package(NeslBackend CONFIG), builds, runs a program through
#                                the libraries and prints what it should
#   run_install_test.sh deb      cpack -G DEB; the package holds the programs and man pages
#
# Everything is written under SCRATCH (in the build tree), nothing in the source tree. The
# settings come from CMake, in the environment:
#   CMAKE_COMMAND CPACK_COMMAND BUILD_DIR CONFIG SCRATCH SOURCE_DIR GENERATOR MAKE_PROGRAM
#   CXX_COMPILER CXX_FLAGS LINKER_FLAGS CXX_LAUNCHER LIBDIR EXPECTED_FILES (paths under the
#   prefix, separated by spaces)
set -eu

step=$1
prefix=$SCRATCH/prefix
here=$SOURCE_DIR/test/install

fail() {
  echo "FAIL ($step): $*" >&2
  exit 1
}

# The contents of a .deb, one path a line (dpkg-deb where there is one, else CMake's tar).
deb_contents() {
  if command -v dpkg-deb >/dev/null 2>&1; then
    dpkg-deb -c "$1"
  else
    (cd "$2" && "$CMAKE_COMMAND" -E tar xf "$1" && "$CMAKE_COMMAND" -E tar tvf data.tar.*)
  fi
}

case $step in
tree)
  rm -rf "$prefix"
  "$CMAKE_COMMAND" --install "$BUILD_DIR" --config "$CONFIG" --prefix "$prefix" >"$SCRATCH/install.log" 2>&1 ||
    { cat "$SCRATCH/install.log" >&2; fail "cmake --install failed"; }
  missing=
  for file in $EXPECTED_FILES; do
    [ -f "$prefix/$file" ] || missing="$missing $file"
  done
  [ -z "$missing" ] || fail "not installed:$missing"
  echo "installed: $(cd "$prefix" && find . -type f | wc -l) files, the $(echo $EXPECTED_FILES | wc -w) expected among them"
  # The installed program runs on its own (no path into the build tree).
  "$prefix/bin/vinterp" --threads 1 "$SOURCE_DIR/nesl-examples/dot_product.vcode" >"$SCRATCH/dot_product.out" ||
    fail "the installed vinterp failed"
  diff "$SOURCE_DIR/nesl-examples/dot_product.expected" "$SCRATCH/dot_product.out" ||
    fail "the installed vinterp printed the wrong result"
  "$prefix/bin/fcode-opt" --list-passes >/dev/null || fail "the installed fcode-opt failed"
  [ "$(printf '1 + 2;\n' | "$prefix/bin/nesl" --threads 1)" = "it = 3 : int" ] ||
    fail "the installed nesl printed the wrong result"
  if command -v groff >/dev/null 2>&1; then
    for page in vinterp fcode-opt nesl; do
      warnings=$(groff -man -ww -z "$prefix/share/man/man1/$page.1" 2>&1) || true
      [ -z "$warnings" ] || fail "$page.1 does not format cleanly: $warnings"
    done
  fi
  echo "install tree ok: $prefix"
  ;;

consumer)
  [ -f "$prefix/$LIBDIR/cmake/NeslBackend/NeslBackendConfig.cmake" ] ||
    fail "no installed package in $prefix (run the test install_tree first)"
  build=$SCRATCH/consumer
  rm -rf "$build"
  set -- -S "$here/consumer" -B "$build" -G "$GENERATOR" -DCMAKE_BUILD_TYPE="$CONFIG" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$CXX_COMPILER" \
    -DCMAKE_CXX_FLAGS="$CXX_FLAGS" -DCMAKE_EXE_LINKER_FLAGS="$LINKER_FLAGS"
  [ -z "$MAKE_PROGRAM" ] || set -- "$@" -DCMAKE_MAKE_PROGRAM="$MAKE_PROGRAM"
  [ -z "$CXX_LAUNCHER" ] || set -- "$@" -DCMAKE_CXX_COMPILER_LAUNCHER="$CXX_LAUNCHER"
  "$CMAKE_COMMAND" "$@" >"$SCRATCH/consumer-configure.log" 2>&1 ||
    { cat "$SCRATCH/consumer-configure.log" >&2; fail "the consumer does not configure"; }
  "$CMAKE_COMMAND" --build "$build" --config "$CONFIG" >"$SCRATCH/consumer-build.log" 2>&1 ||
    { cat "$SCRATCH/consumer-build.log" >&2; fail "the consumer does not build"; }
  exe=$build/consumer
  [ -x "$exe" ] || exe=$build/$CONFIG/consumer  # a multi-config generator
  "$exe" >"$SCRATCH/consumer.out" || fail "the consumer failed (exit $?)"
  diff "$here/consumer/expected_output.txt" "$SCRATCH/consumer.out" ||
    fail "the consumer printed the wrong output"
  rm -rf "$build"
  echo "consumer ok: find_package(NeslBackend CONFIG) with CMAKE_PREFIX_PATH=$prefix"
  ;;

deb)
  out=$SCRATCH/deb
  rm -rf "$out"
  mkdir -p "$out"
  (cd "$out" && "$CPACK_COMMAND" -G DEB -C "$CONFIG" --config "$BUILD_DIR/CPackConfig.cmake" -B "$out") \
    >"$SCRATCH/cpack.log" 2>&1 || { cat "$SCRATCH/cpack.log" >&2; fail "cpack -G DEB failed"; }
  deb=$(ls "$out"/*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || fail "cpack made no .deb"
  mkdir -p "$out/list"
  deb_contents "$deb" "$out/list" >"$SCRATCH/deb-contents.txt" || fail "cannot list $deb"
  missing=
  for file in bin/vinterp bin/fcode-opt bin/nesl share/man/man1/vinterp.1 share/man/man1/fcode-opt.1 \
    share/man/man1/nesl.1 \
    include/nesl/vm/machine.hpp cmake/NeslBackend/NeslBackendConfig.cmake; do
    grep -q "/$file\$" "$SCRATCH/deb-contents.txt" || missing="$missing $file"
  done
  [ -z "$missing" ] || { cat "$SCRATCH/deb-contents.txt" >&2; fail "not in $(basename "$deb"):$missing"; }
  echo "$(basename "$deb"): $(wc -l <"$SCRATCH/deb-contents.txt") entries, the programs and man pages among them"
  rm -rf "$out/_CPack_Packages" "$out/list"
  ;;

*)
  fail "unknown step (tree, consumer or deb)"
  ;;
esac
