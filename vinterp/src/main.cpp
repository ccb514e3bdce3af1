// vinterp's entry point: the program is vinterp::run (vinterp.cpp).
#include "vinterp.hpp"

int main(int argc, char** argv) { return vinterp::run(argc, argv); }
