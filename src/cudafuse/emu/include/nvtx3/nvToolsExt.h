// NVTX (<nvtx3/nvToolsExt.h>, <nvToolsExt.h>) for cudafuse emulation builds: the annotations
// a profiler would show, accepted and ignored (ranges report depth as NVTX does without one).
#pragma once
#include <stdint.h>

#define NVTX_VERSION 3
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)sizeof(nvtxEventAttributes_t))
typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st *nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st *nvtxStringHandle_t;
typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum nvtxMessageType_t {
  NVTX_MESSAGE_UNKNOWN = 0, NVTX_MESSAGE_TYPE_ASCII = 1, NVTX_MESSAGE_TYPE_UNICODE = 2,
  NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;
typedef enum nvtxPayloadType_t {
  NVTX_PAYLOAD_UNKNOWN = 0, NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1, NVTX_PAYLOAD_TYPE_INT64 = 2,
  NVTX_PAYLOAD_TYPE_DOUBLE = 3, NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
  NVTX_PAYLOAD_TYPE_INT32 = 5, NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;
typedef union nvtxMessageValue_t {
  const char *ascii;
  const wchar_t *unicode;
  nvtxStringHandle_t registered;
} nvtxMessageValue_t;
typedef struct nvtxEventAttributes_v2 {
  uint16_t version, size;
  uint32_t category;
  int32_t colorType;
  uint32_t color;
  int32_t payloadType, reserved0;
  union { uint64_t ullValue; int64_t llValue; double dValue; uint32_t uiValue; int32_t iValue;
          float fValue; } payload;
  int32_t messageType;
  nvtxMessageValue_t message;
} nvtxEventAttributes_t;

namespace cudafuse_emu {
inline int g_nvtx_depth = 0;
}
inline void nvtxMarkA(const char *) {}
inline void nvtxMarkEx(const nvtxEventAttributes_t *) {}
inline nvtxRangeId_t nvtxRangeStartA(const char *) { return 0; }
inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *) { return 0; }
inline void nvtxRangeEnd(nvtxRangeId_t) {}
inline int nvtxRangePushA(const char *) { return ::cudafuse_emu::g_nvtx_depth++; }
inline int nvtxRangePushEx(const nvtxEventAttributes_t *) { return ::cudafuse_emu::g_nvtx_depth++; }
inline int nvtxRangePop() {
  return ::cudafuse_emu::g_nvtx_depth > 0 ? --::cudafuse_emu::g_nvtx_depth : -1;
}
inline void nvtxNameOsThreadA(uint32_t, const char *) {}
inline void nvtxNameCategoryA(uint32_t, const char *) {}

// The unsuffixed names are the ASCII forms, as NVTX defines them without UNICODE.
#ifndef UNICODE
#define nvtxMark nvtxMarkA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxRangePush nvtxRangePushA
#define nvtxNameOsThread nvtxNameOsThreadA
#define nvtxNameCategory nvtxNameCategoryA
#endif
