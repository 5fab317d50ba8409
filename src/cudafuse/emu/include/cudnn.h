/* cudafuse emulator stand-in for cudnn.h. The emulator has no cuDNN: this declares only the
   opaque handle and descriptor types and the algorithm enums programs keep in their structs
   (without enumerators), so that a program which includes the header (and names them in
   signatures or members) builds and runs. Every function and constant is left undeclared:
   emu/libraries.py refuses the program at its first use of one ("cuDNN is not supported by
   the emulator"), and a use its scan misses fails g++ with "not declared", which the build
   reports as the same refusal (runtime/build.py). */
#pragma once
#define CUDNN_H_ 1
typedef enum { CUDNN_STATUS_SUCCESS = 0 } cudnnStatus_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;
typedef struct cudnnPoolingStruct *cudnnPoolingDescriptor_t;
typedef struct cudnnLRNStruct *cudnnLRNDescriptor_t;
typedef struct cudnnDropoutStruct *cudnnDropoutDescriptor_t;
typedef struct cudnnRNNStruct *cudnnRNNDescriptor_t;
typedef struct cudnnOpTensorStruct *cudnnOpTensorDescriptor_t;
typedef struct cudnnReduceTensorStruct *cudnnReduceTensorDescriptor_t;
typedef enum cudnnConvolutionFwdAlgo_t {} cudnnConvolutionFwdAlgo_t;
typedef enum cudnnConvolutionBwdDataAlgo_t {} cudnnConvolutionBwdDataAlgo_t;
typedef enum cudnnConvolutionBwdFilterAlgo_t {} cudnnConvolutionBwdFilterAlgo_t;
