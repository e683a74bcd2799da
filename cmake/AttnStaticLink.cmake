# How attn links LLVM/MLIR: one list per library, two modes.
#
# Default (ATTN_STATIC_TOOLS=OFF): everything links the shared libMLIR.so and
# libLLVM.so (the `MLIR` and `LLVM` targets), as Debian's package is built.
#
# -DATTN_STATIC_TOOLS=ON: the tools (attn-opt, attn-run, attn-bundle, and any
# executable or shared library that uses attn_link_mlir) link the static
# component libraries that they use, libstdc++ and libgcc statically, with
# --gc-sections (and lld's --icf=all when lld is there), so that they run on a
# machine without LLVM/MLIR: they need only libc, libm, libdl, libpthread,
# librt (and libz/libzstd when no static copy is installed).
# tools/scripts/build_static.sh builds them into build-static/.
#
# Include after find_package(MLIR) and include(AddLLVM/AddMLIR), before the
# targets are declared.

#-----------------------------------------------------------------------------
# attn_link_mlir(<target> <PUBLIC|PRIVATE|INTERFACE>
#                [<MLIR libraries>...] [LLVM_COMPONENTS <components>...])
#
# Links <target> against the MLIR component libraries it uses (MLIRIR,
# MLIRPass, MLIRArithDialect, MLIRNVVMTarget, ...: the targets of Debian's
# MLIR CMake package) and the LLVM components (Support, Core, NVPTX, ...: as
# llvm_map_components_to_libnames takes them).
#   - dynamic mode: links `MLIR` and `LLVM` instead (upstream's
#     mlir_target_link_libraries with MLIR_LINK_MLIR_DYLIB=ON for the MLIR
#     part), exactly what the build did before this helper existed;
#   - static mode: links the named libraries. The MLIR libraries bring their
#     MLIR dependencies with them (Debian's exported targets record those);
#     of LLVM they bring only the base set below (ATTN_MLIR_LLVM_BASE), so
#     name the LLVM components that the MLIR libraries you name need beyond
#     it (e.g. NVPTX for MLIRNVVMTarget, OrcJIT and the native target for
#     MLIRExecutionEngine). An executable or shared library also gets the
#     static link options (static libstdc++/libgcc, gc-sections, lld + ICF).
#
# Name what the target's own code calls (nm -u on its objects tells); the
# transitive MLIR libraries need not be repeated. In static mode a missing
# name is an undefined-symbol error at the tool's link; a superfluous one
# costs nothing in size (archive members are only pulled in when referenced).
#
# Example, a library that compiles attention to PTX in process:
#   add_mlir_library(attn_jit JIT.cpp LINK_LIBS PUBLIC MLIRAttnPipelines)
#   attn_link_mlir(attn_jit PUBLIC
#     MLIRIR MLIRParser MLIRPass MLIRGPUDialect MLIRNVVMTarget
#     LLVM_COMPONENTS Support NVPTX)
#-----------------------------------------------------------------------------
function(attn_link_mlir target type)
  cmake_parse_arguments(ARG "" "" "LLVM_COMPONENTS" ${ARGN})
  set(MLIR_LINK_MLIR_DYLIB ON)
  if(ATTN_STATIC_TOOLS)
    set(MLIR_LINK_MLIR_DYLIB OFF)
  endif()
  mlir_target_link_libraries(${target} ${type} ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ATTN_STATIC_TOOLS)
    target_link_libraries(${target} ${type} LLVM)
    return()
  endif()
  if(ARG_LLVM_COMPONENTS)
    llvm_map_components_to_libnames(llvm_libs ${ARG_LLVM_COMPONENTS})
    target_link_libraries(${target} ${type} ${llvm_libs})
  endif()
  get_target_property(kind ${target} TYPE)
  if(kind STREQUAL "EXECUTABLE" OR kind STREQUAL "SHARED_LIBRARY")
    target_link_options(${target} PRIVATE ${ATTN_STATIC_LINK_OPTIONS})
  endif()
endfunction()

if(NOT ATTN_STATIC_TOOLS)
  return()
endif()

#-----------------------------------------------------------------------------
# Static mode.
#-----------------------------------------------------------------------------
message(STATUS "attn: static tools (ATTN_STATIC_TOOLS=ON)")

# The package says LLVM_LINK_LLVM_DYLIB=ON: llvm_add_library/add_mlir_library
# would then link the attn libraries' LINK_COMPONENTS (Support) as the shared
# LLVM, and add_llvm_executable would link the shared LLVM too.
set(LLVM_LINK_LLVM_DYLIB OFF)
set(MLIR_LINK_MLIR_DYLIB OFF)

# The LLVM components every MLIR library may use: what Debian's exported MLIR
# targets get instead of the shared `LLVM` they name (the package was built
# with LLVM_LINK_LLVM_DYLIB, so the static MLIR targets lost their component
# lists). Larger LLVM parts (backends, JIT, optimisation pipeline, OpenMP
# IR builder) are named by the attn library that uses the MLIR library that
# needs them.
set(ATTN_MLIR_LLVM_BASE Support Demangle Core BinaryFormat TargetParser
  Remarks BitstreamReader AsmParser)
llvm_map_components_to_libnames(attn_mlir_llvm_base_libs ${ATTN_MLIR_LLVM_BASE})
add_library(attn_mlir_llvm_base INTERFACE)
target_link_libraries(attn_mlir_llvm_base INTERFACE ${attn_mlir_llvm_base_libs})

# Replaces each `item` by the items after it (none: removes it) in the
# INTERFACE_LINK_LIBRARIES of the imported target `target`.
function(attn_replace_link_item target item)
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs OR NOT item IN_LIST libs)
    return()
  endif()
  set(result)
  foreach(lib IN LISTS libs)
    if(lib STREQUAL item)
      list(APPEND result ${ARGN})
    else()
      list(APPEND result ${lib})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES result)
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${result}")
endfunction()

# 1. Debian's static MLIR targets depend on the shared LLVM: the base set
#    instead. Those built outside libMLIR.so (MLIRExecutionEngine, ...) name
#    the shared MLIR for their MLIR dependencies: dropped, the user names them.
foreach(t IN LISTS MLIR_EXPORTED_TARGETS)
  if(TARGET ${t})
    get_target_property(kind ${t} TYPE)
    if(kind STREQUAL "STATIC_LIBRARY")
      attn_replace_link_item(${t} LLVM attn_mlir_llvm_base)
      attn_replace_link_item(${t} MLIR)
    endif()
  endif()
endforeach()

# 2. LLVMSupport's system libraries: no Z3 (only LLVM's SMT-based analyzer
#    uses it), zstd and zlib linked statically when their .a is installed
#    (Debian: libzstd-dev, zlib1g-dev), else shared.
find_library(ATTN_ZSTD_STATIC NAMES libzstd.a)
find_library(ATTN_ZLIB_STATIC NAMES libz.a)
get_target_property(support_libs LLVMSupport INTERFACE_LINK_LIBRARIES)
list(FILTER support_libs EXCLUDE REGEX "libz3")
if(ATTN_ZSTD_STATIC)
  list(TRANSFORM support_libs REPLACE "^zstd::libzstd_shared$" "${ATTN_ZSTD_STATIC}")
elseif(NOT TARGET zstd::libzstd_shared)
  # No libzstd-dev: the runtime library of libzstd1 (always installed).
  find_library(ATTN_ZSTD_SHARED NAMES libzstd.so.1 zstd REQUIRED)
  add_library(zstd::libzstd_shared SHARED IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES
    IMPORTED_LOCATION "${ATTN_ZSTD_SHARED}")
endif()
if(ATTN_ZLIB_STATIC)
  list(TRANSFORM support_libs REPLACE "^ZLIB::ZLIB$" "${ATTN_ZLIB_STATIC}")
endif()
set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES "${support_libs}")

# 3. LLVMExtensions names Polly, whose static library Debian does not ship
#    (LLVM's pass builder reaches it only when Polly is linked into tools).
if(TARGET Polly)
  get_target_property(polly_loc Polly IMPORTED_LOCATION_RELWITHDEBINFO)
  if(NOT polly_loc OR NOT EXISTS "${polly_loc}")
    attn_replace_link_item(LLVMExtensions Polly)
  endif()
endif()

# 4. Link options of the static executables: the C++ runtime inside, dead
#    code out, lld with identical code folding when it is installed.
#    Not position-independent: no run-time relocations (2 MB less per tool).
set(ATTN_STATIC_LINK_OPTIONS -static-libstdc++ -static-libgcc -no-pie
  -Wl,--gc-sections)
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" ATTN_HAVE_LLD)
if(ATTN_HAVE_LLD)
  list(APPEND ATTN_STATIC_LINK_OPTIONS -fuse-ld=lld -Wl,--icf=all)
else()
  message(WARNING "attn: lld not found (Debian: apt-get install lld): static "
                  "tools link with the default linker, without --icf=all")
endif()
# Every function and datum in its own section, so that --gc-sections can drop
# what the tools never reach (LLVM's HandleLLVMOptions adds these for
# optimised builds already; Debug builds get them here).
add_compile_options(-ffunction-sections -fdata-sections)
