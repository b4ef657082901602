# DFX_CPU_LEVEL: the x86-64 level the C and C++ code is compiled for.
#
#   auto      x86-64-v3 when the machine configuring the build has it (AVX2,
#             FMA, BMI2, F16C, MOVBE: every x86 server since 2015), else
#             baseline. Right when the build runs where it is built (CI,
#             tools/quickstart, a per-host build).
#   x86-64-v3 always: Eigen's element-wise kernels use 8-float vectors
#             instead of SSE2's 4 (activations about 2x faster).
#   baseline  the compiler's default (SSE2): for binaries shipped to
#             machines of unknown age.
#
# -ffp-contract=off keeps the compiler from fusing a*b+c in scalar code, so
# results do not change with the level (Eigen's explicit FMA packets aside).
# CUDA device code is not affected. `dfx version` prints the level.
set(DFX_CPU_LEVEL "auto" CACHE STRING
    "x86-64 level for C/C++ code: auto, x86-64-v3 or baseline")
set_property(CACHE DFX_CPU_LEVEL PROPERTY STRINGS auto x86-64-v3 baseline)

set(DFX_CPU_LEVEL_TEXT "baseline")
if(DFX_CPU_LEVEL STREQUAL "auto")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    include(CheckCXXSourceRuns)
    set(CMAKE_REQUIRED_QUIET ON)
    check_cxx_source_runs([=[
      int main() {
        __builtin_cpu_init();
        return (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c") &&
                __builtin_cpu_supports("movbe")) ? 0 : 1;
      }]=] DFX_HOST_HAS_X86_64_V3)
    unset(CMAKE_REQUIRED_QUIET)
    if(DFX_HOST_HAS_X86_64_V3)
      set(DFX_CPU_LEVEL_TEXT "x86-64-v3")
    endif()
  endif()
elseif(DFX_CPU_LEVEL STREQUAL "x86-64-v3")
  set(DFX_CPU_LEVEL_TEXT "x86-64-v3")
elseif(NOT DFX_CPU_LEVEL STREQUAL "baseline")
  message(FATAL_ERROR
          "DFX_CPU_LEVEL must be auto, x86-64-v3 or baseline, not '${DFX_CPU_LEVEL}'")
endif()

if(DFX_CPU_LEVEL_TEXT STREQUAL "x86-64-v3")
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-march=x86-64-v3;-mtune=generic>")
  add_compile_definitions(DFX_CPU_X86_64_V3=1)
endif()
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-ffp-contract=off>")
message(STATUS "dfx: CPU level ${DFX_CPU_LEVEL_TEXT} (DFX_CPU_LEVEL=${DFX_CPU_LEVEL})")
