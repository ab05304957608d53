// Catch2 main for the host-only unit tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
