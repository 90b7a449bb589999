# The installed package: public headers (the include closure of the entry points below, so
# internals stay out), the libraries as exported targets tessel::<name>, the executables,
# tesselConfig.cmake and its version file. Included by the top-level CMakeLists.txt after
# every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TESSEL_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/tessel)
set(TESSEL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessel)

# The headers a library user includes; everything they include is installed with them.
set(TESSEL_PUBLIC_HEADERS
  core/types.hpp core/error.hpp core/dense.hpp core/timer.hpp core/metrics.hpp
  core/version.hpp core/generators.hpp
  core/formats/coo.hpp core/formats/csr.hpp core/formats/tiled_ell.hpp
  core/backend.hpp core/kernels/spmm.hpp core/kernels/spgemm.hpp core/kernels/tiled_ell_tiles.hpp
  core/operator/spmm_operator.hpp core/operator/default_tiles.hpp core/cpu/isa.hpp
  core/dist/make_grid_spmm.hpp core/dist/sender_multiplies_spmm.hpp
  io/matrix_market.hpp io/graph_challenge.hpp io/memxct_raw.hpp io/hdf5_file.hpp
  io/data_exchange.hpp io/png_writer.hpp
  partition/permutation.hpp partition/hilbert.hpp partition/kmeans_reorder.hpp
  partition/balanced_partition.hpp partition/process_grid.hpp partition/dist_setup.hpp
  apps/xct/driver/api.hpp apps/xct/driver/reconstruct.hpp apps/xct/geometry/phantom.hpp
  apps/spdnn/driver/inference.hpp apps/spdnn/network/network.hpp apps/spdnn/network/generator.hpp
  apps/spdnn/reference/reference_inference.hpp
  apps/ccsd_abcd/executor/executor.hpp apps/ccsd_abcd/problem/problem.hpp
  apps/ccsd_abcd/problem/synthetic_generator.hpp apps/ccsd_abcd/problem/molecule_generator.hpp
  apps/ccsd_abcd/problem/problem_file.hpp
)

# Libraries: target -> exported name (tessel::core, ...).
set(TESSEL_EXPORTED_LIBRARIES tessel_core:core tessel_io:io tessel_partition:partition
                              tessel_xct:xct tessel_spdnn:spdnn tessel_abcd:abcd)
set(TESSEL_INSTALLED_PROGRAMS tessel-xct tessel-spdnn tessel-abcd)

# Dependencies found again by tesselConfig.cmake (the libraries are static, so a consumer links
# them too). A module that adds one (FFTW, TIFF, ...) appends its line from anywhere in the
# build, before or after this file is read, for example in apps/xct/CMakeLists.txt:
#   set_property(GLOBAL APPEND PROPERTY TESSEL_CONFIG_DEPENDENCIES
#                "pkg_check_modules(FFTW3F REQUIRED IMPORTED_TARGET fftw3f)")
# or, after this file, tessel_config_dependency("find_dependency(TIFF)"). The config file is
# written once the whole tree has been read.
set_property(GLOBAL APPEND PROPERTY TESSEL_CONFIG_DEPENDENCIES
  "find_dependency(MPI COMPONENTS CXX)"
  "find_dependency(OpenMP COMPONENTS CXX)"
  "get_property(tessel_languages GLOBAL PROPERTY ENABLED_LANGUAGES)"
  "if(NOT \"C\" IN_LIST tessel_languages)\n  enable_language(C)  # FindHDF5 compiles a C test\nendif()"
  "find_dependency(HDF5 COMPONENTS C)"
  "find_dependency(BLAS)"
  "find_dependency(PNG)"
  "find_dependency(Threads)"
  "find_dependency(nlohmann_json 3)"
  "find_dependency(PkgConfig)"
  "pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)")
if(TESSEL_CUDA_SIM)
  # The simulated device runs on Boost.Context fibers (core/cuda/sim/).
  set_property(GLOBAL APPEND PROPERTY TESSEL_CONFIG_DEPENDENCIES "find_dependency(Boost 1.74 COMPONENTS context)")
elseif(TESSEL_HAVE_CUDA)
  set_property(GLOBAL APPEND PROPERTY TESSEL_CONFIG_DEPENDENCIES "find_dependency(CUDAToolkit)")
endif()
function(tessel_config_dependency line)
  set_property(GLOBAL APPEND PROPERTY TESSEL_CONFIG_DEPENDENCIES "${line}")
endfunction()

# Every header reachable from `header` by #include "..." (project-relative paths).
function(tessel_header_closure out)
  set(queue ${ARGN})
  set(seen "")
  while(queue)
    list(POP_FRONT queue header)
    if(header IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${header})
    set(file ${PROJECT_SOURCE_DIR}/${header})
    if(NOT EXISTS ${file})
      message(FATAL_ERROR "tessel install: public header ${header} not found")
    endif()
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" included "${line}")
      list(APPEND queue ${included})
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

tessel_header_closure(tessel_installed_headers ${TESSEL_PUBLIC_HEADERS})
list(SORT tessel_installed_headers)
foreach(header IN LISTS tessel_installed_headers)
  set(file ${PROJECT_SOURCE_DIR}/${header})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${file} DESTINATION ${TESSEL_INSTALL_INCLUDEDIR}/${dir} COMPONENT devel)
endforeach()

set(tessel_library_targets "")
foreach(pair IN LISTS TESSEL_EXPORTED_LIBRARIES)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 target)
  list(GET pair 1 name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  list(APPEND tessel_library_targets ${target})
endforeach()
target_include_directories(tessel_core PUBLIC $<INSTALL_INTERFACE:${TESSEL_INSTALL_INCLUDEDIR}>)
install(TARGETS ${tessel_library_targets} EXPORT tesselTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${TESSEL_INSTALLED_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT tesselTargets NAMESPACE tessel:: DESTINATION ${TESSEL_INSTALL_CMAKEDIR})

# The config file is written at generate time so that dependencies added after this file was
# included (tessel_config_dependency) are in it.
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL tessel_write_config)
function(tessel_write_config)
  get_property(deps GLOBAL PROPERTY TESSEL_CONFIG_DEPENDENCIES)
  list(JOIN deps "\n" TESSEL_FIND_DEPENDENCIES)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tesselConfig.cmake.in
    ${PROJECT_BINARY_DIR}/tesselConfig.cmake INSTALL_DESTINATION ${TESSEL_INSTALL_CMAKEDIR})
endfunction()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesselConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesselConfig.cmake ${PROJECT_BINARY_DIR}/tesselConfigVersion.cmake
        DESTINATION ${TESSEL_INSTALL_CMAKEDIR})
