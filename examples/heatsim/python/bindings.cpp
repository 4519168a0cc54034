// Python bindings (pybind11) for the heat solver.
#include <pybind11/pybind11.h>
PYBIND11_MODULE(_heatsim, m) { m.doc() = "heatsim bindings"; }
