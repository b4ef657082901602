# Install rules and the CMake package. `cmake --install build --prefix P`
# puts the headers a C++ client includes under P/include/dfx (the source
# tree's folders and the generated proto/ headers), the static libraries
# under P/lib, the dfx command under P/bin, and the package under
# P/lib/cmake/dfx: an out-of-tree project does
#
#   find_package(dfx CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE dfx::client)
#
# dfx::client brings every library (dfx::coordinator, dfx::rpc and all below it), their
# include folders and their third-party dependencies, which dfxConfig.cmake
# finds again (gRPC, protobuf, Abseil, spdlog, Eigen, oneDNN, OpenSSL, ...).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DFX_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dfx)
set(DFX_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/dfx)

# dfx::client: the one target a client links, in the build tree too.
add_library(dfx_client INTERFACE)
target_link_libraries(dfx_client INTERFACE dfx::coordinator)
add_library(dfx::client ALIAS dfx_client)

# The module libraries, exported under their alias names (dfx::graph, ...).
set(DFX_INSTALLED_MODULES proto base grpc_status graph runtime checkpoint kernels
    rendezvous worker master eager rpc coordinator)
if(TARGET dfx_gpu)
  list(APPEND DFX_INSTALLED_MODULES gpu gpu_kernels)
endif()
set(_dfx_install_targets dfx_client)
foreach(module ${DFX_INSTALLED_MODULES})
  set_target_properties(dfx_${module} PROPERTIES EXPORT_NAME ${module})
  list(APPEND _dfx_install_targets dfx_${module})
endforeach()
set_target_properties(dfx_client PROPERTIES EXPORT_NAME client)
install(TARGETS ${_dfx_install_targets} EXPORT dfxTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${DFX_INSTALL_INCLUDEDIR})

# The session factories ("local", "grpc") register from static
# initializers in object files that dfx::master and dfx::rpc hand to every
# program linking them (see master/CMakeLists.txt); they are installed as
# object files for the same reason.
foreach(registration dfx_master_registration dfx_rpc_registration)
  if(TARGET ${registration})
    string(REPLACE "dfx_" "" export_name ${registration})
    set_target_properties(${registration} PROPERTIES EXPORT_NAME ${export_name})
    install(TARGETS ${registration} EXPORT dfxTargets
      OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/dfx)
  endif()
endforeach()

# The dfx command (dfx::dfx in the package, for scripts and tests).
if(TARGET dfx)
  install(TARGETS dfx EXPORT dfxTargets
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# Headers: the client API — building graphs (graph/builder/), loading
# GraphDefs, sessions and tensors, grpc:// sessions and cluster specs — and
# every dfx header those include (their closure, worked out with g++ -MM;
# tests/package/run_install_test fails when an installed header includes a
# dfx header that is not installed). Paths as in the source tree
# ("graph/builder/ops.h"), under P/include/dfx.
set(DFX_PUBLIC_HEADERS
  # The API.
  base/status_macros.h base/task_status.h
  coordinator/cluster_coordinator.h
  graph/builder/control_flow.h graph/builder/gradients.h graph/builder/ops.h
  graph/builder/scope.h graph/builder/train.h
  graph/graph_def_import.h
  rpc/cluster_spec.h rpc/grpc_session.h
  runtime/session.h runtime/tensor.h
  # What it includes.
  base/logging.h base/shared_ref.h
  graph/graph.h graph/op_registry.h graph/shape_inference.h graph/types.h
  rpc/security.h
  runtime/allocator.h runtime/resource_handle.h runtime/tensor_shape.h
  runtime/types.h)
foreach(header ${DFX_PUBLIC_HEADERS})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
    DESTINATION ${DFX_INSTALL_INCLUDEDIR}/${dir})
endforeach()
# Every generated message header (the wire formats are API: GraphDef,
# ConfigProto, RunOptions, ...), and the .proto files they come from.
install(DIRECTORY ${PROJECT_BINARY_DIR}/proto/
  DESTINATION ${DFX_INSTALL_INCLUDEDIR}/proto
  FILES_MATCHING PATTERN "*.pb.h" PATTERN "CMakeFiles" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/proto/
  DESTINATION ${DFX_INSTALL_INCLUDEDIR}/proto
  FILES_MATCHING PATTERN "*.proto")

install(EXPORT dfxTargets NAMESPACE dfx::
  DESTINATION ${DFX_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/dfxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/dfxConfig.cmake
  INSTALL_DESTINATION ${DFX_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/dfxConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/dfxConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/dfxConfigVersion.cmake
  DESTINATION ${DFX_INSTALL_CMAKEDIR})
