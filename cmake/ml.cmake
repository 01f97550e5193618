# ml/: everything that links libtorch (docs/design.md, "ml"). Included from the top CMakeLists.txt
# after the core targets; owns sparsemap_ml, ml_tests and the ml benchmarks.
#
#   SPARSEMAP_WITH_TORCH (default ON when find_package(Torch) succeeds): build ml/ and
#   `sparsemap-ml`, the CLI linked with it (compile definition SPARSEMAP_HAVE_TORCH), to which
#   `sparsemap` hands the commands that need libtorch.
find_package(Torch QUIET)
if(Torch_FOUND OR TORCH_FOUND)
  set(_sparsemap_torch_default ON)
else()
  set(_sparsemap_torch_default OFF)
endif()
option(SPARSEMAP_WITH_TORCH "Build ml/ (libtorch): NonGEMM Bench and the learned parts"
  ${_sparsemap_torch_default})
if(NOT SPARSEMAP_WITH_TORCH)
  message(STATUS "sparsemap: ml/ not built (SPARSEMAP_WITH_TORCH=OFF or libtorch not found)")
  return()
endif()
if(NOT (Torch_FOUND OR TORCH_FOUND))
  message(FATAL_ERROR "SPARSEMAP_WITH_TORCH=ON but find_package(Torch) failed (Debian: libtorch-dev)")
endif()
message(STATUS "sparsemap: ml/ with libtorch ${Torch_VERSION}")

# The taxonomy is data: data/nongemm_taxonomy.json, compiled in as a string.
set(_taxonomy ${PROJECT_SOURCE_DIR}/data/nongemm_taxonomy.json)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_taxonomy})
file(READ ${_taxonomy} SPARSEMAP_NONGEMM_TAXONOMY_JSON)
configure_file(${PROJECT_SOURCE_DIR}/src/ml/nongemm/taxonomy_data.cpp.in
  ${PROJECT_BINARY_DIR}/generated/ml/nongemm_taxonomy_data.cpp @ONLY)

sparsemap_sources(ml_sources ml)
list(FILTER ml_sources EXCLUDE REGEX "/src/ml/[^/]+/options\\.cpp$")  # in the core (CMakeLists.txt)
add_library(sparsemap_ml STATIC ${ml_sources}
  ${PROJECT_BINARY_DIR}/generated/ml/nongemm_taxonomy_data.cpp)
target_link_libraries(sparsemap_ml PUBLIC sparsemap_core ${TORCH_LIBRARIES} ${CMAKE_DL_LIBS})
find_package(ZLIB REQUIRED)  # ml/data: Fashion-MNIST's gzipped IDX files (Debian zlib1g-dev)
target_link_libraries(sparsemap_ml PUBLIC ZLIB::ZLIB)

# The CLI with libtorch; `sparsemap` hands it the commands that need libtorch.
add_executable(sparsemap-ml ${app_torch_sources})
target_link_libraries(sparsemap-ml PRIVATE sparsemap_cli_common sparsemap_ml)
target_compile_definitions(sparsemap-ml PRIVATE SPARSEMAP_HAVE_TORCH)
target_compile_definitions(sparsemap PRIVATE SPARSEMAP_TORCH_HELPER="sparsemap-ml")
add_dependencies(sparsemap sparsemap-ml)  # built together: `sparsemap` alone is not the whole CLI
install(TARGETS sparsemap-ml RUNTIME DESTINATION bin COMPONENT cli)

if(SPARSEMAP_BUILD_TESTS)
  sparsemap_add_tests(ml sparsemap_ml)  # src/ml/**/*_test.cpp -> ml_tests
endif()

if(SPARSEMAP_BUILD_BENCH)
  file(GLOB ml_bench_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bench/ml/*_bench.cpp)
  foreach(src ${ml_bench_sources})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE sparsemap_ml)
  endforeach()
endif()
