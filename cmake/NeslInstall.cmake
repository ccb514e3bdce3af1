# What `cmake --install` installs, and the CMake package NeslBackend that lets another project use
# the libraries (README "Installing"):
#
#   bin/                      vinterp, fcode-opt, nesl
#   share/man/man1/           vinterp.1, fcode-opt.1, nesl.1 (doc/man/)
#   include/nesl/             vcode/ (vcode/include), cvl/ (cvl/include), vm/ (the VM's headers,
#                             vinterp/src/vm),
#                             cvl_cpu/, fopt/, cvl_cuda/ (the CUDA source generator, and the
#                             CUDA libraries where built),
#                             cvl_mpi/ (where MPI was found)
#   lib/                      the static libraries
#   lib/cmake/NeslBackend/    NeslBackendConfig.cmake, its version file and the exported targets
#
# The exported targets are NeslBackend::<name>: vcode (parser, linker, printer), vm (the VM and the
# backend registry, linking every vector library built), cvl_cpu, fopt (the optimizer), and where
# built cvl_cuda_emulated, cvl_cuda and cvl_mpi; plus what they link (cvl_contract, cvl_random,
# cvl_unfused, cvl_cubin_cache, and in every build cvl_cuda_options, the GPU backends' options)
# and the programs vinterp and fcode-opt. Included from the top-level CMakeLists.txt after every
# library is defined.
include(CMakePackageConfigHelpers)

set(NESL_CMAKE_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/NeslBackend")

set(nesl_exported_libraries vcode cvl_api cvl_contract cvl_random cvl_unfused cvl_cpu cvl_registry vinterp_vm fopt
                            cvl_cuda_codegen cvl_cuda_options)
if(TARGET cvl_cuda_emulated)
  list(APPEND nesl_exported_libraries cvl_cuda_emulated)
endif()
if(TARGET cvl_cuda)
  list(APPEND nesl_exported_libraries cvl_cubin_cache cvl_cuda)
endif()
if(TARGET cvl_mpi)
  list(APPEND nesl_exported_libraries cvl_mpi)
endif()

# The VM library is NeslBackend::vm; the others keep their names. The same names work in this
# build tree (for a project that adds this one with add_subdirectory).
set_target_properties(vinterp_vm PROPERTIES EXPORT_NAME vm)
foreach(target IN LISTS nesl_exported_libraries)
  get_target_property(export_name ${target} EXPORT_NAME)
  if(NOT export_name)
    set(export_name ${target})
  endif()
  add_library(NeslBackend::${export_name} ALIAS ${target})
endforeach()

# The headers need C++20; a consumer gets it from the targets. The VM's headers (vm/machine.hpp
# and what it includes) live beside its sources and are installed as include/nesl/vm/.
target_compile_features(vcode PUBLIC cxx_std_20)
target_include_directories(vinterp_vm PUBLIC $<INSTALL_INTERFACE:${NESL_INSTALL_INCLUDEDIR}>)

# vinterp finds the libraries it links outside the system's directories where they were at link
# time; those in the system's own directories add nothing. (NVRTC is not linked: a CUDA build
# opens it at first use, by soname, then at the toolkit path it was built with.)
set_target_properties(vinterp fcode-opt PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS vinterp fcode-opt ${nesl_exported_libraries}
        EXPORT NeslBackendTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/vcode/include/ ${PROJECT_SOURCE_DIR}/cvl/include/
                  ${PROJECT_SOURCE_DIR}/cvl-cpu/include/ ${PROJECT_SOURCE_DIR}/cvl-cuda/include/
                  ${PROJECT_SOURCE_DIR}/fcode-opt/include/
        DESTINATION ${NESL_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/vinterp/src/vm/
        DESTINATION ${NESL_INSTALL_INCLUDEDIR}/vm
        FILES_MATCHING PATTERN "*.hpp")
if(TARGET cvl_mpi)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/cvl-mpi/include/ DESTINATION ${NESL_INSTALL_INCLUDEDIR})
endif()

install(FILES ${PROJECT_SOURCE_DIR}/doc/man/vinterp.1 ${PROJECT_SOURCE_DIR}/doc/man/fcode-opt.1
              ${PROJECT_SOURCE_DIR}/doc/man/nesl.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The NESL compiler and REPL: a program only (its libraries are not part of the package).
install(TARGETS nesl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/nesl-backend)

# What NeslBackendConfig.cmake must find before the targets: each is on when an exported target
# links it.
set(NESL_PACKAGE_NEEDS_SLEEF OFF)
if(NESL_SLEEF_LIBRARY)  # cvl_cpu links it (cvl-cpu/CMakeLists.txt)
  set(NESL_PACKAGE_NEEDS_SLEEF ON)
  get_filename_component(NESL_SLEEF_LIBRARY_DIR "${NESL_SLEEF_LIBRARY}" DIRECTORY)
endif()
set(NESL_PACKAGE_NEEDS_NLOHMANN_JSON OFF)
if(TARGET nlohmann_json::nlohmann_json)  # the VM's --trace-json writer
  set(NESL_PACKAGE_NEEDS_NLOHMANN_JSON ON)
endif()
set(NESL_PACKAGE_HAS_CUDA OFF)
set(NESL_PACKAGE_HAS_CUDA_EMULATED OFF)
if(TARGET cvl_cuda)  # CUDA::cudart_static (NVRTC is opened at run time)
  set(NESL_PACKAGE_HAS_CUDA ON)
  get_filename_component(NESL_CUDA_TOOLKIT_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
if(TARGET cvl_cuda_emulated)
  set(NESL_PACKAGE_HAS_CUDA_EMULATED ON)
endif()
set(NESL_PACKAGE_HAS_MPI OFF)
if(TARGET cvl_mpi)  # MPI::MPI_CXX
  set(NESL_PACKAGE_HAS_MPI ON)
endif()

install(EXPORT NeslBackendTargets
        NAMESPACE NeslBackend::
        DESTINATION ${NESL_CMAKE_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/NeslBackendConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/NeslBackendConfig.cmake
                              INSTALL_DESTINATION ${NESL_CMAKE_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/NeslBackendConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/NeslBackendConfig.cmake
              ${PROJECT_BINARY_DIR}/NeslBackendConfigVersion.cmake
        DESTINATION ${NESL_CMAKE_PACKAGE_DIR})
