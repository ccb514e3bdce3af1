// The vinterp program (vinterp.cpp), as a function: main.cpp calls it, and so does a program of
// tests built with backends of its own (test/CMakeLists.txt).
#pragma once

namespace vinterp {

// Runs vinterp with this command line; returns its exit status.
int run(int argc, char** argv);

}  // namespace vinterp
