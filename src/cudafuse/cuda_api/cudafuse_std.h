// cuda::std for cudafuse, the front end and the emulator alike (each side's cuda/std/*
// stand-ins include it): the host's standard library. A real namespace (not an alias of
// ::std) so that other stand-ins may add to it; qualified lookup follows the using-directive
// into ::std for everything they do not declare.
#pragma once
namespace cuda {
namespace std {
using namespace ::std;
}  // namespace std
}  // namespace cuda
