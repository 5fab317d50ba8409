/* Stand-in for the ccminer-config.h that ccminer's configure script generates (written for
   cudafuse's benchmark, benchmarks/hfuse_library_pairs.py). miner.h includes it first; the
   one definition here keeps ccminer's host code compiling with CUDA 13, which dropped the
   long-deprecated cudaThreadSynchronize (the same call as cudaDeviceSynchronize). */
#pragma once
#define cudaThreadSynchronize cudaDeviceSynchronize
