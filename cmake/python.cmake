# python/: the `sparsemap` Python package (pybind11). Included from the top CMakeLists.txt after
# the core targets. The package is assembled in ${PROJECT_BINARY_DIR}/python/sparsemap, so
# `PYTHONPATH=build/python python3 -c 'import sparsemap'` works from the build tree; pytest runs
# python/tests under ctest as `python_tests` (SPARSEMAP_BUILD_DIR: the build tree, whose CLI the
# tests run to compute their expectations; test_install.py runs `cmake --install` into a
# temporary prefix).
#
#   SPARSEMAP_WITH_PYTHON (default ON when pybind11 and Python 3 development files are found).
find_package(pybind11 CONFIG QUIET)
if(NOT pybind11_FOUND)
  message(STATUS "sparsemap: Python package not built (Debian: pybind11-dev python3-dev)")
  return()
endif()
option(SPARSEMAP_WITH_PYTHON "Build the Python package (pybind11)" ON)
if(NOT SPARSEMAP_WITH_PYTHON)
  return()
endif()
message(STATUS "sparsemap: Python package for ${Python3_EXECUTABLE}")

# A static library linked into a shared module needs position-independent code.
set_target_properties(sparsemap_core PROPERTIES POSITION_INDEPENDENT_CODE ON)

file(GLOB python_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.cpp)
set(_pkg ${PROJECT_BINARY_DIR}/python/sparsemap)
pybind11_add_module(sparsemap_python MODULE ${python_sources})
set_target_properties(sparsemap_python PROPERTIES OUTPUT_NAME _sparsemap
  LIBRARY_OUTPUT_DIRECTORY ${_pkg})
target_link_libraries(sparsemap_python PRIVATE sparsemap_core)
add_dependencies(sparsemap_python sparsemap_onnx)
# prune_mask's vocabulary (prune-train --type) is ml/prune's torch-free sparsity_type.cpp,
# compiled into the module: linking sparsemap_ml would pull libtorch into `import sparsemap`.
target_sources(sparsemap_python PRIVATE ${PROJECT_SOURCE_DIR}/src/ml/prune/sparsity_type.cpp)
# `sparsemap._ml`: the functions that need libtorch (hwalloc's RL methods, report's NonGEMM
# profile, nongemm), linked with sparsemap_ml, where libtorch is built. `import sparsemap` never
# loads it: python/sparsemap/__init__.py imports it for those only. bind_hwalloc.cpp,
# bind_report.cpp and the keyword and run helpers are compiled into both modules.
if(TARGET sparsemap_ml)
  set_target_properties(sparsemap_ml PROPERTIES POSITION_INDEPENDENT_CODE ON)
  pybind11_add_module(sparsemap_ml_python MODULE ${PROJECT_SOURCE_DIR}/python/src/ml/module.cpp
    ${PROJECT_SOURCE_DIR}/python/src/ml/bind_nongemm.cpp
    ${PROJECT_SOURCE_DIR}/python/src/ml/bind_train.cpp
    ${PROJECT_SOURCE_DIR}/python/src/ml/bind_prune.cpp
    ${PROJECT_SOURCE_DIR}/python/src/bind_hwalloc.cpp ${PROJECT_SOURCE_DIR}/python/src/bind_report.cpp
    ${PROJECT_SOURCE_DIR}/python/src/keywords.cpp
    ${PROJECT_SOURCE_DIR}/python/src/system_call.cpp)
  set_target_properties(sparsemap_ml_python PROPERTIES OUTPUT_NAME _ml
    LIBRARY_OUTPUT_DIRECTORY ${_pkg})
  target_link_libraries(sparsemap_ml_python PRIVATE sparsemap_ml)
  add_dependencies(sparsemap_ml_python sparsemap_python)
endif()

# The pure-Python part of the package and the shipped data (data/, found by
# io::shipped_data_file beside the module), copied beside the module at build time.
file(GLOB python_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/sparsemap/*.py)
foreach(f ${python_files})
  get_filename_component(name ${f} NAME)
  add_custom_command(TARGET sparsemap_python POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${f} ${_pkg}/${name})
endforeach()
add_custom_command(TARGET sparsemap_python POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${PROJECT_SOURCE_DIR}/data ${_pkg}/data)

# `cmake --install`: into the interpreter's site-packages below the install prefix.
execute_process(COMMAND ${Python3_EXECUTABLE} -c
  "import sysconfig; print(sysconfig.get_path('platlib', vars={'platbase': '.', 'base': '.'}))"
  OUTPUT_VARIABLE _site OUTPUT_STRIP_TRAILING_WHITESPACE)
set(SPARSEMAP_PYTHON_INSTALL_DIR ${_site} CACHE PATH "Install folder of the Python package")
# Component `python`: `cmake --install build --component python` installs the package alone.
install(TARGETS sparsemap_python LIBRARY DESTINATION ${SPARSEMAP_PYTHON_INSTALL_DIR}/sparsemap
  COMPONENT python)
install(FILES ${python_files} DESTINATION ${SPARSEMAP_PYTHON_INSTALL_DIR}/sparsemap
  COMPONENT python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/
  DESTINATION ${SPARSEMAP_PYTHON_INSTALL_DIR}/sparsemap/data COMPONENT python)
if(TARGET sparsemap_ml_python)
  install(TARGETS sparsemap_ml_python LIBRARY DESTINATION ${SPARSEMAP_PYTHON_INSTALL_DIR}/sparsemap
    COMPONENT python)
endif()
# The plugins beside the module (src/sys/plugin.cpp looks beside the object holding its code).
install(TARGETS sparsemap_onnx LIBRARY DESTINATION ${SPARSEMAP_PYTHON_INSTALL_DIR}/sparsemap
  COMPONENT python)
if(TARGET sparsemap_mpi)
  install(TARGETS sparsemap_mpi LIBRARY DESTINATION ${SPARSEMAP_PYTHON_INSTALL_DIR}/sparsemap
    COMPONENT python)
endif()

# The modules are the library's: no CLI code in them (issue 29). Each system function calls its
# system's run() (python/src/bind_<system>.cpp); a source of apps/ compiled into a module, or a
# python/src file that includes from apps/ (commands.h, ...) or CLI11, fails the configuration.
foreach(module sparsemap_python sparsemap_ml_python)
  if(NOT TARGET ${module})
    continue()
  endif()
  get_target_property(_module_sources ${module} SOURCES)
  foreach(src ${_module_sources})
    if(src MATCHES "/apps/")
      message(FATAL_ERROR "${module}: ${src} is CLI code (apps/); call the system's run()")
    endif()
  endforeach()
endforeach()
file(GLOB_RECURSE _binding_files ${PROJECT_SOURCE_DIR}/python/src/*.cpp
  ${PROJECT_SOURCE_DIR}/python/src/*.h)
foreach(f ${_binding_files})
  file(STRINGS ${f} _cli_includes REGEX "^#include [\"<](commands\\.h|CLI/|.*apps/)")
  if(_cli_includes)
    message(FATAL_ERROR "${f} includes CLI code (${_cli_includes}): python/ calls the library")
  endif()
endforeach()

if(SPARSEMAP_BUILD_TESTS)
  add_test(NAME python_tests COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
    ${PROJECT_SOURCE_DIR}/python/tests)
  set_tests_properties(python_tests PROPERTIES
    ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;SPARSEMAP_SOURCE_DIR=${PROJECT_SOURCE_DIR};SPARSEMAP_BUILD_DIR=${PROJECT_BINARY_DIR}")
endif()
