# cudafuse as a build step in CMake (3.20+; Ninja or Makefiles): include this file, then
#
#   cudafuse_fuse(<var> <source.cu> [SCRATCH name...] [OPTIONS arg...])
#
# adds a rule that writes <build dir>/<name>.fused.cu from <source.cu> with `cudafuse fuse`
# and sets <var> to its path, for add_executable / add_library. cudafuse writes a depfile
# (-MD -MF) naming the source and every header it read, so editing either fuses the
# source again. SCRATCH names the pipeline's intermediate buffers the caller does not read
# afterwards (--scratch); OPTIONS are passed as they are (--fuse-all, --block 32x8, ...).
# The cudafuse executable is found on PATH, or set CUDAFUSE to it. With
# CMAKE_EXPORT_COMPILE_COMMANDS on, cudafuse reads each source's -I/-D/-include/-std from
# the build's compile_commands.json (-p): the entry of the fused file that the target
# compiles, whose flags are the target's.

function(_cudafuse_compdb out)
  if(CMAKE_EXPORT_COMPILE_COMMANDS)
    set(${out} -p "${CMAKE_BINARY_DIR}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

if(NOT CUDAFUSE)
  find_program(CUDAFUSE cudafuse REQUIRED)
endif()

function(cudafuse_fuse out src)
  cmake_parse_arguments(CF "" "" "SCRATCH;OPTIONS" ${ARGN})
  get_filename_component(source "${src}" ABSOLUTE)
  get_filename_component(name "${source}" NAME_WE)
  set(fused "${CMAKE_CURRENT_BINARY_DIR}/${name}.fused.cu")
  set(scratch)
  foreach(buffer IN LISTS CF_SCRATCH)
    list(APPEND scratch --scratch "${buffer}")
  endforeach()
  if(CMAKE_CUDA_ARCHITECTURES MATCHES "^([0-9]+)")
    set(arch --arch "sm_${CMAKE_MATCH_1}")
  else()
    set(arch)
  endif()
  _cudafuse_compdb(compdb)
  add_custom_command(
    OUTPUT "${fused}"
    COMMAND "${CUDAFUSE}" fuse "${source}" -o "${fused}" -MD -MF "${fused}.d" ${arch}
            ${compdb} ${scratch} ${CF_OPTIONS}
    DEPENDS "${source}"
    DEPFILE "${fused}.d"
    COMMENT "cudafuse fuse ${name}.cu"
    VERBATIM)
  set(${out} "${fused}" PARENT_SCOPE)
endfunction()

#   cudafuse_hfuse(<var> <a.cu> [<b.cu>] KERNELS A,B [BLOCK1 X] [BLOCK2 Y] [OPTIONS arg...])
#
# the same for horizontal fusion: writes <build dir>/<A>_<B>.hfused.cu (the inputs, the
# fused kernel and its launcher) with `cudafuse hfuse` and its depfile.
function(cudafuse_hfuse out)
  cmake_parse_arguments(CF "" "KERNELS;BLOCK1;BLOCK2" "OPTIONS" ${ARGN})
  set(sources)
  foreach(src IN LISTS CF_UNPARSED_ARGUMENTS)
    get_filename_component(source "${src}" ABSOLUTE)
    list(APPEND sources "${source}")
  endforeach()
  string(REPLACE "," "_" stem "${CF_KERNELS}")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "" stem "${stem}")
  set(fused "${CMAKE_CURRENT_BINARY_DIR}/${stem}.hfused.cu")
  set(blocks)
  if(CF_BLOCK1)
    list(APPEND blocks --block1 "${CF_BLOCK1}")
  endif()
  if(CF_BLOCK2)
    list(APPEND blocks --block2 "${CF_BLOCK2}")
  endif()
  _cudafuse_compdb(compdb)
  add_custom_command(
    OUTPUT "${fused}"
    COMMAND "${CUDAFUSE}" hfuse ${sources} --kernels "${CF_KERNELS}" ${blocks} ${compdb}
            -o "${fused}" -MD -MF "${fused}.d" ${CF_OPTIONS}
    DEPENDS ${sources}
    DEPFILE "${fused}.d"
    COMMENT "cudafuse hfuse ${CF_KERNELS}"
    VERBATIM)
  set(${out} "${fused}" PARENT_SCOPE)
endfunction()
