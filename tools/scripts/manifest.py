"""The kernel bundle's manifest.txt in Python: the runtime's format
(runtime/include/attn/runtime/Bundle.h, written and parsed in C++ by
formatManifestLine / parseManifest), read and written here for the scripts
that take a bundle apart (sanitize_gpu.py, jit_check.py,
build_gpu_programs.py). A kernel line is `kernel key=value ...`; other lines
are comments or blank."""


def kernel_fields(line):
    """The key=value pairs of a kernel line, in order; None for any other
    line."""
    words = line.split()
    if not words or words[0] != "kernel":
        return None
    return dict(w.split("=", 1) for w in words[1:] if "=" in w)


def format_kernel(fields):
    """The kernel line (without newline) of `fields`."""
    return "kernel " + " ".join(f"{k}={v}" for k, v in fields.items())


def read(path):
    """[(line, fields or None)] of the manifest at `path`, every line kept."""
    with open(path) as f:
        return [(line, kernel_fields(line)) for line in f]


def kernels(path):
    """The fields of every kernel line of the manifest at `path`."""
    return [k for _, k in read(path) if k is not None]


def sass_files(fields):
    """{chip: cubin file} of a kernel's sass= list."""
    return dict(item.split(":", 1)
                for item in fields.get("sass", "").split(",") if item)


def persistent(fields):
    """Whether a kernel loops over the tiles of its grid: its grid= is
    persistent(X,Y,Z) (KernelABI.h, formatLaunchGrid), launched as
    min(SMs, X·Y·Z) blocks in x."""
    return fields.get("grid", "").startswith(("persistent(", "dynamic("))


def tile_counter(fields):
    """Whether a persistent kernel claims its tiles from a counter: its
    grid= is dynamic(X,Y,Z) (KernelABI.h): the launcher passes a pointer to
    a 32-bit zero in device memory last, which the kernel leaves zero."""
    return fields.get("grid", "").startswith("dynamic(")
