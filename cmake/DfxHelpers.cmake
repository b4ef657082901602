# dfx_library(NAME SRCS ... DEPS ...) builds one module as the static library
# dfx_NAME with the alias dfx::NAME. DEPS is the module's whole contract with
# the rest of the house: the libraries it may include and link.
set(DFX_WARNINGS -Wall -Wextra -Werror -Wno-unused-parameter
    -Wno-missing-field-initializers)

# dfx_enable_sanitizer(KIND) adds the compile and link flags of a sanitizer
# to every target defined after it (KIND: address = ASan+UBSan, thread =
# TSan, empty = none). C++ only: CUDA is off in sanitized builds.
macro(dfx_enable_sanitizer KIND)
  if("${KIND}" STREQUAL "address")
    set(_dfx_san_flags -fsanitize=address,undefined -fno-omit-frame-pointer
        -fno-sanitize-recover=undefined)
  elseif("${KIND}" STREQUAL "thread")
    set(_dfx_san_flags -fsanitize=thread -fno-omit-frame-pointer)
  elseif(NOT "${KIND}" STREQUAL "")
    message(FATAL_ERROR "DFX_SANITIZE must be address, thread or empty, not '${KIND}'")
  else()
    set(_dfx_san_flags "")
  endif()
  if("${KIND}" STREQUAL "thread")
    # Debian's Abseil is not built with TSan, so TSan cannot see absl::Mutex
    # lock and unlock: DFX_TSAN_ABSL_DIR holds instrumented copies of its
    # synchronization libraries (tools/sanitizers/build_absl_tsan), found
    # first through an RPATH (transitive, unlike RUNPATH: gRPC's uses too).
    set(DFX_TSAN_ABSL_DIR "" CACHE PATH
        "Abseil synchronization libraries built with TSan")
    if(DFX_TSAN_ABSL_DIR)
      add_link_options(-Wl,--disable-new-dtags -Wl,-rpath,${DFX_TSAN_ABSL_DIR})
    else()
      message(WARNING "DFX_SANITIZE=thread without DFX_TSAN_ABSL_DIR: every "
              "absl::Mutex is invisible to TSan (use tools/test --sanitize thread)")
    endif()
    # Likewise gRPC: its callback API hands every reactor between threads
    # through uninstrumented code (tools/sanitizers/build_grpc_tsan).
    set(DFX_TSAN_GRPC_DIR "" CACHE PATH "gRPC libraries built with TSan")
    if(DFX_TSAN_GRPC_DIR)
      add_link_options(-Wl,--disable-new-dtags -Wl,-rpath,${DFX_TSAN_GRPC_DIR})
    else()
      message(WARNING "DFX_SANITIZE=thread without DFX_TSAN_GRPC_DIR: gRPC's "
              "callback reactors are handed between threads unseen by TSan "
              "(use tools/test --sanitize thread)")
    endif()
    # GCC 12 warns (-Wtsan) that TSan does not model atomic_thread_fence,
    # which Eigen's thread pool uses: a warning, not an error that stops
    # the build. What TSan may then report inside Eigen's pool is a
    # suppression's business (tools/sanitizers/tsan.supp), named there.
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-error=tsan>")
    # protobuf's MapFieldBase changes its layout under TSan; Debian's
    # libprotobuf has the plain one (tools/sanitizers/tsan_protobuf_abi.h).
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:--include=${PROJECT_SOURCE_DIR}/tools/sanitizers/tsan_protobuf_abi.h>")
  endif()
  if(_dfx_san_flags)
    # -O1 -g1 (line tables): the usual sanitizer build, about half the
    # compile time of -O2 -g on this code, with file:line in every report.
    set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
    set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_dfx_san_flags}>")
    # GCC's -Wmaybe-uninitialized is wrong under the sanitizers' extra code
    # at -O1 (absl::InlinedVector's storage inside a moved Tensor, say): a
    # warning there, not an error that stops the sanitized build.
    add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-error=maybe-uninitialized>")
    add_link_options(${_dfx_san_flags})
    add_compile_definitions(DFX_SANITIZE_${KIND}=1)
    message(STATUS "dfx: sanitizer ${KIND}: ${_dfx_san_flags}")
  endif()
endmacro()

function(dfx_library NAME)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  if(ARG_SRCS)
    add_library(dfx_${NAME} STATIC ${ARG_SRCS})
    # Build-tree folders only: an installed dfx's come from install(TARGETS
    # ... INCLUDES DESTINATION) in cmake/DfxInstall.cmake.
    target_include_directories(dfx_${NAME} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
    target_link_libraries(dfx_${NAME} PUBLIC ${ARG_DEPS})
    target_compile_options(dfx_${NAME}
      PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${DFX_WARNINGS}>)
  else()
    add_library(dfx_${NAME} INTERFACE)
    target_include_directories(dfx_${NAME} INTERFACE
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
    target_link_libraries(dfx_${NAME} INTERFACE ${ARG_DEPS})
  endif()
  add_library(dfx::${NAME} ALIAS dfx_${NAME})
endfunction()

# dfx_module_sources(OUT) lists the .cc files of the calling module's folder
# and its subfolders (internal/, ops/, ...).
# dfx_precompile_headers(TARGET HEADER...) precompiles HEADERs (paths from
# the repository root, or <system/headers.h>) for TARGET's C++ files and includes them first in
# each. GCC spends 3 to 6 s of a typical kernel or test file's compile
# parsing Eigen's Tensor module, the kernel API and Catch, the same in every
# file: precompiled, a file reads them in a fraction of a second. Only
# headers that nearly all of the target's files include anyway, and that
# define no macro another file tests (a forced include must not change what
# a file means). A file that forgets an include the precompiled header
# supplies still compiles here and fails where DFX_PCH is off (sanitized
# builds): include what you use. The precompiled header names its
# build folder, so ccache reuses such objects within one checkout, not
# across checkouts; a file that compiles for minutes is better left out
# (SKIP_PRECOMPILE_HEADERS). Off with -DDFX_PCH=OFF.
function(dfx_precompile_headers TARGET)
  if(NOT DFX_PCH)
    return()
  endif()
  set(headers)
  foreach(h ${ARGN})
    if(NOT h MATCHES "^<")  # <system/header.h> stays as it is
      set(h "${PROJECT_SOURCE_DIR}/${h}")
    endif()
    list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
  endforeach()
  target_precompile_headers(${TARGET} PRIVATE ${headers})
endfunction()

function(dfx_module_sources OUT)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_main\\.cc$")
  set(${OUT} ${srcs} PARENT_SCOPE)
endfunction()

# dfx_binary(NAME SRCS ... DEPS ...) builds a program into build/bin.
function(dfx_binary NAME)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${NAME} ${ARG_SRCS})
  target_link_libraries(${NAME} PRIVATE ${ARG_DEPS} ${DFX_MALLOC_LIBRARIES})
  target_compile_options(${NAME} PRIVATE ${DFX_WARNINGS})
endfunction()
