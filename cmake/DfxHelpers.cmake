# dfx_library(NAME SRCS ... DEPS ...) builds one module as the static library
# dfx_NAME with the alias dfx::NAME. DEPS is the module's whole contract with
# the rest of the house: the libraries it may include and link.
set(DFX_WARNINGS -Wall -Wextra -Werror -Wno-unused-parameter
    -Wno-missing-field-initializers)

function(dfx_library NAME)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  if(ARG_SRCS)
    add_library(dfx_${NAME} STATIC ${ARG_SRCS})
    target_include_directories(dfx_${NAME} PUBLIC ${PROJECT_SOURCE_DIR}
                                                  ${PROJECT_BINARY_DIR})
    target_link_libraries(dfx_${NAME} PUBLIC ${ARG_DEPS})
    target_compile_options(dfx_${NAME}
      PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${DFX_WARNINGS}>)
  else()
    add_library(dfx_${NAME} INTERFACE)
    target_include_directories(dfx_${NAME} INTERFACE ${PROJECT_SOURCE_DIR}
                                                     ${PROJECT_BINARY_DIR})
    target_link_libraries(dfx_${NAME} INTERFACE ${ARG_DEPS})
  endif()
  add_library(dfx::${NAME} ALIAS dfx_${NAME})
endfunction()

# dfx_module_sources(OUT) lists the .cc files of the calling module's folder
# and its subfolders (internal/, ops/, ...).
function(dfx_module_sources OUT)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_main\\.cc$")
  set(${OUT} ${srcs} PARENT_SCOPE)
endfunction()

# dfx_binary(NAME SRCS ... DEPS ...) builds a program into build/bin.
function(dfx_binary NAME)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${NAME} ${ARG_SRCS})
  target_link_libraries(${NAME} PRIVATE ${ARG_DEPS})
  target_compile_options(${NAME} PRIVATE ${DFX_WARNINGS})
endfunction()
