# The version and build options `dfx version` prints, written at configure
# time into build/tools/cli/version_info.h (included only by
# tools/cli/version.cc, so a reconfigure recompiles one file).
#
# DFX_GIT_COMMIT is the commit checked out when CMake configured the build
# folder ("unknown" outside a git checkout, "-dirty" with uncommitted
# changes then); a later commit shows after the next reconfigure. A build
# without the .git folder (deploy/Dockerfile) may pass -DDFX_COMMIT=...
set(DFX_COMMIT "" CACHE STRING
    "The commit `dfx version` prints (empty: ask git at configure time)")
set(DFX_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(DFX_COMMIT)
  set(DFX_GIT_COMMIT "${DFX_COMMIT}")
elseif(GIT_FOUND)
  execute_process(
    COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE _dfx_commit OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _dfx_git_rc ERROR_QUIET)
  if(_dfx_git_rc EQUAL 0 AND _dfx_commit)
    set(DFX_GIT_COMMIT "${_dfx_commit}")
    execute_process(
      COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD --
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      RESULT_VARIABLE _dfx_dirty ERROR_QUIET)
    if(_dfx_dirty EQUAL 1)
      string(APPEND DFX_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
if(DFX_HAVE_CUDA)
  set(DFX_CUDA_TEXT "on")
else()
  set(DFX_CUDA_TEXT "off")
endif()
if(DFX_SANITIZE)
  set(DFX_SANITIZE_TEXT "${DFX_SANITIZE}")
else()
  set(DFX_SANITIZE_TEXT "none")
endif()
if(CMAKE_BUILD_TYPE)
  set(DFX_BUILD_TYPE_TEXT "${CMAKE_BUILD_TYPE}")
else()
  set(DFX_BUILD_TYPE_TEXT "none")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/version_info.h.in
               ${PROJECT_BINARY_DIR}/tools/cli/version_info.h @ONLY)
