/* cudafuse stand-in for curand.h: cuRAND's host API, declared for the front end. */
#pragma once
/* The enums, the status type and the generator handle: the emulator's stand-in, which stops
   there (it refuses a program at its first cuRAND call); the host API follows. */
#include "../../../emu/include/curand.h"
curandStatus_t curandCreateGenerator(curandGenerator_t *g, curandRngType_t t);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *g, curandRngType_t t);
curandStatus_t curandDestroyGenerator(curandGenerator_t g);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long s);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset);
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t g, unsigned int d);
curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t s);
curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *out, size_t n);
curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t n);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *out, size_t n);
curandStatus_t curandGenerateNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                    float stddev);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *out, size_t n,
                                          double mean, double stddev);
curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                       float stddev);
curandStatus_t curandGeneratePoisson(curandGenerator_t g, unsigned int *out, size_t n,
                                     double lambda);
curandStatus_t curandGetDirectionVectors32(unsigned int (**vectors)[32],
                                           curandDirectionVectorSet_t set);
curandStatus_t curandGetDirectionVectors64(unsigned long long (**vectors)[64],
                                           curandDirectionVectorSet_t set);
curandStatus_t curandGetScrambleConstants32(unsigned int **constants);
curandStatus_t curandGetVersion(int *version);
