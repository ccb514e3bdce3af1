// Catch2's main for the CVL conformance suite.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
