# `cmake --install <build> --prefix <prefix>`: what a prefix gets, and the
# package that finds it again. Included last by the top-level CMakeLists.txt,
# so that every target exists; install(TARGETS) of targets made in other
# directories is fine since CMake 3.13.
#
#   <prefix>/include/attn/runtime/*.h         runtime headers        [runtime]
#   <prefix>/lib/libattn_runtime.a            C++ and C API, static  [runtime]
#   <prefix>/lib/libattn_reference.a          (its float64 reference)
#   <prefix>/lib/libattn_runtime_c.so         C API, shared
#   <prefix>/lib/pkgconfig/attn-runtime.pc    the shared C API
#   <prefix>/lib/pkgconfig/attn-runtime-static.pc   the static libraries
#   <prefix>/lib/cmake/attn/                  find_package(attn)
#   <prefix>/lib/cmake/attnRuntime/           find_package(attnRuntime), the
#                                             older name (Runtime only)
#   <prefix>/include/attn/{Dialect,Transforms,Conversion,Pipelines}/
#                                             .h, .td, generated .h.inc
#                                                                    [compiler]
#   <prefix>/lib/libMLIRAttn*.a               the compiler libraries [compiler]
#   <prefix>/bin/attn-{opt,run,bundle}                               [tools]
#   <prefix>/share/attn/bundle/               the kernel bundle      [bundle]
#
# The words in brackets are install components (cmake --install --component
# X); without --component everything is installed. The compiler, tools and
# their package parts exist only with ATTN_ENABLE_COMPILER; the runtime-only
# build (-DATTN_ENABLE_COMPILER=OFF) installs the runtime, the package with
# its Runtime component and the bundle it was configured with, if that
# directory exists.
#
# The installed runtime finds <prefix>/share/attn/bundle by itself: its
# default bundle is ../share/attn/bundle relative to the file holding its code
# (libattn_runtime_c.so in <prefix>/lib, or a program in <prefix>/bin), see
# attn::defaultBundleDir() in runtime/include/attn/runtime/Runtime.h.
# Programs elsewhere get the path from the package (attn_BUNDLE_DIR, the .pc
# files' `bundledir`) or $ATTN_BUNDLE_DIR.
include(CMakePackageConfigHelpers)

set(ATTN_INSTALL_CMAKE_DIR lib/cmake/attn)
set(ATTN_INSTALL_BUNDLE_DIR share/attn/bundle)

# A library built with sanitizers needs their runtimes in whatever links it:
# the package says so (CMake targets and pkg-config alike), so a consumer
# only has to use the same compiler.
set(ATTN_PACKAGE_LINK_OPTIONS "")
if(ATTN_SANITIZERS)
  list(JOIN ATTN_SANITIZERS "," attn_pkg_san)
  set(ATTN_PACKAGE_LINK_OPTIONS "-fsanitize=${attn_pkg_san}")
endif()

set(ATTN_PACKAGE_COMPONENTS "")

#===-------------------------------------------------------------------------===#
# Runtime (runtime/CMakeLists.txt installs the files; here the package).
#===-------------------------------------------------------------------------===#
if(TARGET attn_runtime)
  list(APPEND ATTN_PACKAGE_COMPONENTS Runtime)
  install(EXPORT attnRuntimeTargets NAMESPACE attn::
    DESTINATION ${ATTN_INSTALL_CMAKE_DIR} COMPONENT runtime)

  # find_package(attnRuntime): the name the runtime-only install had before
  # find_package(attn) existed; the same targets, from lib/cmake/attn.
  configure_file(${CMAKE_CURRENT_LIST_DIR}/attnRuntimeConfig.cmake.in
    ${PROJECT_BINARY_DIR}/package/attnRuntimeConfig.cmake @ONLY)
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/package/attnRuntimeConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/package/attnRuntimeConfig.cmake
    ${PROJECT_BINARY_DIR}/package/attnRuntimeConfigVersion.cmake
    DESTINATION lib/cmake/attnRuntime COMPONENT runtime)

  # pkg-config: attn-runtime (the C API, shared) and attn-runtime-static.
  foreach(pc attn-runtime attn-runtime-static)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in
      ${PROJECT_BINARY_DIR}/package/${pc}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/package/${pc}.pc
      DESTINATION lib/pkgconfig COMPONENT runtime)
  endforeach()
endif()

#===-------------------------------------------------------------------------===#
# Compiler: libraries, headers, tools, bundle.
#===-------------------------------------------------------------------------===#
if(ATTN_ENABLE_COMPILER)
  list(APPEND ATTN_PACKAGE_COMPONENTS Compiler)

  # The add_mlir_*_library targets. They are declared with DISABLE_INSTALL:
  # AddMLIR's own rule (add_mlir_library_install) would put them in MLIR's
  # export set (MLIRTargets, through the MLIR_EXPORTS property), which this
  # project never installs, and skip them under LLVM_INSTALL_TOOLCHAIN_ONLY.
  # They go into attn's own export set instead. Their link interface names
  # MLIR and LLVM (the shared libMLIR.so and libLLVM.so), which the
  # package's Compiler component finds through find_package(MLIR).
  set(ATTN_COMPILER_LIBRARIES
    MLIRAttnDialect
    MLIRAttnTransforms
    MLIRAttnToLinalg
    MLIRAttnGPUToNVVM
    MLIRAttnPipelines
    # libattn_jit (attn/JIT/Jit.h) and its disk cache: the compiler a
    # runtime uses for kernels its bundle lacks. It links attn::attn_runtime
    # (the Runtime component).
    attn_kernel_cache
    attn_jit)
  foreach(lib ${ATTN_COMPILER_LIBRARIES})
    target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:include>)
  endforeach()
  install(TARGETS ${ATTN_COMPILER_LIBRARIES}
    EXPORT attnCompilerTargets
    ARCHIVE DESTINATION lib COMPONENT compiler
    LIBRARY DESTINATION lib COMPONENT compiler
    RUNTIME DESTINATION bin COMPONENT compiler)
  install(EXPORT attnCompilerTargets NAMESPACE attn::
    DESTINATION ${ATTN_INSTALL_CMAKE_DIR} COMPONENT compiler)

  # Public headers: the sources (.h, and .td for projects that extend the
  # dialect with TableGen) and the generated declarations they include
  # (.h.inc; the .cpp.inc definitions are compiled into the libraries).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/attn
    DESTINATION include COMPONENT compiler
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  install(DIRECTORY ${PROJECT_BINARY_DIR}/include/attn
    DESTINATION include COMPONENT compiler
    FILES_MATCHING PATTERN "*.h.inc"
    PATTERN "CMakeFiles" EXCLUDE)

  # The tools. add_llvm_executable gives them an install RUNPATH of
  # $ORIGIN/../lib only, and cmake --install would drop the build's
  # /usr/lib/llvm-22/lib, where libMLIR.so is (not on the loader's path on
  # Debian): name it. (INSTALL_RPATH_USE_LINK_PATH is not enough: with
  # clang 22 as the compiler, CMake counts clang's own /usr/lib/llvm-22/lib
  # among the implicit link directories and leaves it out.)
  set_target_properties(attn-opt attn-run attn-bundle PROPERTIES
    INSTALL_RPATH "\$ORIGIN/../lib;${LLVM_LIBRARY_DIR}")
  install(TARGETS attn-opt attn-run attn-bundle
    RUNTIME DESTINATION bin COMPONENT tools)

  # The bundle attn-kernel-bundle wrote (part of `all`).
  install(DIRECTORY ${ATTN_BUNDLE_DIR}/
    DESTINATION ${ATTN_INSTALL_BUNDLE_DIR} COMPONENT bundle)
elseif(TARGET attn_runtime)
  # Runtime-only: the bundle it was configured with, if there is one.
  install(DIRECTORY ${ATTN_BUNDLE_DIR}/
    DESTINATION ${ATTN_INSTALL_BUNDLE_DIR} COMPONENT bundle OPTIONAL)
endif()

#===-------------------------------------------------------------------------===#
# find_package(attn [version] CONFIG [COMPONENTS Runtime Compiler])
#===-------------------------------------------------------------------------===#
if(ATTN_PACKAGE_COMPONENTS)
  configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/attnConfig.cmake.in
    ${PROJECT_BINARY_DIR}/package/attnConfig.cmake
    INSTALL_DESTINATION ${ATTN_INSTALL_CMAKE_DIR}
    PATH_VARS ATTN_INSTALL_BUNDLE_DIR)
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/package/attnConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  # In every component that installs targets, so that
  # `cmake --install --component runtime` (or compiler) alone gives a
  # usable package.
  foreach(component runtime compiler)
    if((component STREQUAL "runtime" AND TARGET attn_runtime) OR
       (component STREQUAL "compiler" AND ATTN_ENABLE_COMPILER))
      install(FILES
        ${PROJECT_BINARY_DIR}/package/attnConfig.cmake
        ${PROJECT_BINARY_DIR}/package/attnConfigVersion.cmake
        DESTINATION ${ATTN_INSTALL_CMAKE_DIR} COMPONENT ${component})
    endif()
  endforeach()
endif()
