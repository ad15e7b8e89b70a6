##===- cmake/OneFlowCuda.cmake - The CUDA backend's toolchain -*- cmake -*-===//
#
# The CUDA backend builds whenever a CUDA toolkit with cuBLASLt and cuDNN is
# present, GPU or not, for sm_80 and sm_90 (A100, H100/H200); without one
# the project builds without it and says so. ONEFLOW_ENABLE_CUDA=OFF turns
# it off. Sets ONEFLOW_HAVE_CUDA and the imported target CUDNN::cudnn, and
# ONEFLOW_HAVE_NCCL and NCCL::nccl when the toolkit has NCCL (the "nccl"
# collective library between GPUs).
##===----------------------------------------------------------------------===//
option(ONEFLOW_ENABLE_CUDA "Build the CUDA backend when a toolkit is found" ON)
set(ONEFLOW_HAVE_CUDA OFF)
if(NOT ONEFLOW_ENABLE_CUDA)
  message(STATUS "CUDA backend: off (ONEFLOW_ENABLE_CUDA=OFF)")
  return()
endif()

# Debian's PATH has no nvcc; the toolkit's usual home has.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX}
   AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "CUDA backend: off (no CUDA toolkit found; it is looked "
                 "for in /usr/local/cuda)")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)
endif()
enable_language(CUDA)
find_package(CUDAToolkit)
find_library(CUDNN_LIBRARY NAMES cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublasLt OR NOT CUDNN_LIBRARY
   OR NOT CUDNN_INCLUDE_DIR)
  message(STATUS "CUDA backend: off (the CUDA toolkit lacks cuBLASLt or "
                 "cuDNN 9)")
  return()
endif()
add_library(CUDNN::cudnn UNKNOWN IMPORTED)
set_target_properties(CUDNN::cudnn PROPERTIES
  IMPORTED_LOCATION ${CUDNN_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${CUDNN_INCLUDE_DIR})
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(ONEFLOW_HAVE_CUDA ON)
find_library(NCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
set(ONEFLOW_HAVE_NCCL OFF)
set(_oneflow_nccl "no NCCL")
if(NCCL_LIBRARY AND NCCL_INCLUDE_DIR)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES
    IMPORTED_LOCATION ${NCCL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
  set(ONEFLOW_HAVE_NCCL ON)
  set(_oneflow_nccl "NCCL")
endif()
message(STATUS "CUDA backend: on (CUDA ${CUDAToolkit_VERSION}, "
               "architectures ${CMAKE_CUDA_ARCHITECTURES}, ${_oneflow_nccl})")
