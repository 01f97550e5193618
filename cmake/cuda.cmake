# CUDA kernels of sparse/kernels/cuda: a library, a self-contained test (registered with ctest;
# exits 77 = skipped on any CUDA error) and a self-contained benchmark (never in ctest).
#
# Normal builds include this at the end of the top CMakeLists: it does nothing without a CUDA
# toolkit. With -DSPARSEMAP_CUDA_ONLY=ON the top CMakeLists includes it right after detecting
# CUDA and returns: then it also builds the few host sources the CUDA code needs (formats,
# pruning, reference kernels: standard library only), so the build needs nothing but the CUDA
# toolkit, CMake and a host compiler (the GPU machine has no Debian -dev packages).
if(NOT SPARSEMAP_HAVE_CUDA)
  if(SPARSEMAP_CUDA_ONLY)
    message(FATAL_ERROR "SPARSEMAP_CUDA_ONLY=ON but no CUDA toolkit was found")
  endif()
  return()
endif()

find_package(CUDAToolkit REQUIRED)

if(SPARSEMAP_CUDA_ONLY)
  set(sparsemap_cuda_host_sources
    src/sparse/format/dense.cpp
    src/sparse/format/formats.cpp
    src/sparse/format/formats_nm.cpp
    src/sparse/format/format_spec.cpp
    src/sparse/format/matrix_io.cpp
    src/sparse/prune/prune.cpp
    src/sparse/kernels/spmm_check.cpp
    src/sparse/kernels/spmm_ref.cpp
    src/measure/spmm_bench.cpp)
  list(TRANSFORM sparsemap_cuda_host_sources PREPEND ${PROJECT_SOURCE_DIR}/)
  add_library(sparsemap_sparse_host STATIC ${sparsemap_cuda_host_sources})
  target_include_directories(sparsemap_sparse_host PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_compile_options(sparsemap_sparse_host PRIVATE -Wall -Wextra)
  set(sparsemap_cuda_host sparsemap_sparse_host)
  enable_testing()
else()
  set(sparsemap_cuda_host sparsemap_core)
endif()

add_library(sparsemap_cuda STATIC ${PROJECT_SOURCE_DIR}/src/sparse/kernels/cuda/spmm_cuda.cu)
target_include_directories(sparsemap_cuda PUBLIC ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(sparsemap_cuda PUBLIC ${sparsemap_cuda_host} CUDA::cudart CUDA::cublas
  CUDA::cusparse)
set_target_properties(sparsemap_cuda PROPERTIES CUDA_ARCHITECTURES "80;90"
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
target_compile_options(sparsemap_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)

add_executable(sparse_cuda_tests ${PROJECT_SOURCE_DIR}/src/sparse/kernels/cuda/spmm_cuda_test.cu)
target_link_libraries(sparse_cuda_tests PRIVATE sparsemap_cuda)
set_target_properties(sparse_cuda_tests PROPERTIES CUDA_ARCHITECTURES "80;90" CUDA_STANDARD 17)
add_test(NAME sparse_cuda_tests COMMAND sparse_cuda_tests)
set_tests_properties(sparse_cuda_tests PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

add_executable(spmm_cuda_bench ${PROJECT_SOURCE_DIR}/bench/spmm_cuda_bench.cu)
target_link_libraries(spmm_cuda_bench PRIVATE sparsemap_cuda)
set_target_properties(spmm_cuda_bench PROPERTIES CUDA_ARCHITECTURES "80;90" CUDA_STANDARD 17)
