//===- Bundle.cpp - manifest parsing and variant selection ------*- C++ -*-===//
#include "attn/runtime/Bundle.h"
#include "attn/runtime/Reference.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <tuple>
#include <utility>

namespace attn {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::Unsupported:
    return "unsupported";
  case StatusCode::NoDriver:
    return "no CUDA driver";
  case StatusCode::NoDevice:
    return "no CUDA device";
  case StatusCode::BundleError:
    return "bundle error";
  case StatusCode::CudaError:
    return "CUDA error";
  case StatusCode::Internal:
    return "internal error";
  case StatusCode::NotInBundle:
    return "not in the bundle";
  }
  return "unknown status";
}

//===----------------------------------------------------------------------===//
// Chips
//===----------------------------------------------------------------------===//

std::string Chip::str() const {
  std::string s = "sm_" + std::to_string(major) + std::to_string(minor);
  if (variant)
    s += variant;
  return s;
}

bool parseChip(const std::string &text, Chip &out) {
  if (text.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3, digits = 0;
  int number = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4) {
    number = number * 10 + (text[i] - '0');
    ++i;
    ++digits;
  }
  // Two or three digits: sm_80, sm_100. The last digit is the minor version.
  if (digits < 2 || digits > 3 || number < 10)
    return false;
  char variant = 0;
  if (i < text.size() && (text[i] == 'a' || text[i] == 'f'))
    variant = text[i++];
  if (i != text.size())
    return false;
  out.major = number / 10;
  out.minor = number % 10;
  out.variant = variant;
  return true;
}

bool chipRunsOn(const Chip &chip, int ccMajor, int ccMinor) {
  switch (chip.variant) {
  case 'a': // Arch-specific features (wgmma, setmaxnreg) exist only there.
    return chip.major == ccMajor && chip.minor == ccMinor;
  case 'f':
    return chip.major == ccMajor && chip.minor <= ccMinor;
  default: // Portable PTX: the driver JIT-compiles it for any later GPU.
    return chip.major < ccMajor ||
           (chip.major == ccMajor && chip.minor <= ccMinor);
  }
}

static int specificity(const Chip &c) {
  return c.variant == 'a' ? 2 : c.variant == 'f' ? 1 : 0;
}

/// Of the chips that `usable` admits, the highest compute capability and,
/// for equal ones, the most specific; ties keep the earlier line (the
/// compiler lists its preference first). -1 if none.
template <typename Usable>
static int bestChip(const std::vector<Chip> &chips, Usable usable) {
  int best = -1;
  auto key = [](const Chip &x) {
    return std::make_tuple(x.major, x.minor, specificity(x));
  };
  for (size_t i = 0; i < chips.size(); ++i)
    if (usable(chips[i]) &&
        (best < 0 || key(chips[i]) > key(chips[size_t(best)])))
      best = int(i);
  return best;
}

int selectVariant(const std::vector<Chip> &chips, int ccMajor, int ccMinor) {
  return bestChip(
      chips, [&](const Chip &c) { return chipRunsOn(c, ccMajor, ccMinor); });
}

int bestPtxFor(const std::vector<Chip> &ptx, const Chip &sass) {
  return bestChip(ptx, [&](const Chip &c) { return canAssemble(c, sass); });
}

bool canAssemble(const Chip &ptx, const Chip &sass) {
  return chipRunsOn(ptx, sass.major, sass.minor) &&
         (ptx.variant != 'a' || sass.variant == 'a');
}

bool sassRunsOn(const Chip &sass, int ccMajor, int ccMinor) {
  if (sass.variant == 'f') // a family cubin: that major, this minor or later
    return chipRunsOn(sass, ccMajor, ccMinor);
  return sass.major == ccMajor && sass.minor == ccMinor;
}

int selectSass(const KernelEntry &k, int ccMajor, int ccMinor) {
  int best = -1;
  // An exact architecture first ('a', then plain: the 'a' cubin may use
  // instructions the plain one cannot), then the closest family cubin.
  auto rank = [](const Chip &c) {
    int exactness = c.variant == 'a' ? 2 : (c.variant == 0 ? 1 : 0);
    return std::make_tuple(exactness, c.minor);
  };
  for (size_t i = 0; i < k.sass.size(); ++i)
    if (sassRunsOn(k.sass[i].chip, ccMajor, ccMinor) &&
        (best < 0 || rank(k.sass[i].chip) > rank(k.sass[size_t(best)].chip)))
      best = int(i);
  return best;
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

namespace {

/// Parses a decimal integer in [lo, hi]; no sign games, no trailing junk.
bool parseInt(const std::string &s, long long lo, long long hi, int &out) {
  if (s.empty() || s.size() > 12)
    return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (!(s[i] >= '0' && s[i] <= '9') && !(i == 0 && s[i] == '-'))
      return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi)
    return false;
  out = int(v);
  return true;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '$'))
      return false;
  return true;
}

class LineParser {
public:
  LineParser(const std::string &source, int line)
      : source_(source), line_(line) {}

  Status error(const std::string &msg) const {
    return Status::error(StatusCode::BundleError,
                         source_ + ":" + std::to_string(line_) + ": " + msg);
  }

  Status parse(const std::vector<std::string> &tokens, KernelEntry &k,
               std::vector<std::string> &warnings) {
    std::set<std::string> seen;
    for (size_t i = 1; i < tokens.size(); ++i) {
      const std::string &tok = tokens[i];
      size_t eq = tok.find('=');
      if (eq == std::string::npos || eq == 0)
        return error("expected key=value, got '" + tok + "'");
      std::string key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (!seen.insert(key).second)
        return error("duplicate key '" + key + "'");
      if (value.empty())
        return error("empty value for '" + key + "'");
      if (Status s = setKey(key, value, k, warnings); !s.ok())
        return s;
    }
    static const char *required[] = {"name",    "ptx",      "chip",
                                     "dtype",   "head_dim", "causal",
                                     "block_m", "threads",  "smem"};
    for (const char *r : required)
      if (!seen.count(r))
        return error(std::string("missing key '") + r + "'");
    // A line without abi= is one of the hand-written kernels' bundles,
    // whose parameter list this runtime no longer launches.
    if (!seen.count("abi"))
      return error("missing key 'abi' (a bundle of the hand-written "
                   "kernels, whose ABI this runtime no longer launches: "
                   "rebuild it with attn-bundle)");
    if (!seen.count("head_dim_v"))
      k.headDimV = k.headDim;
    if (!seen.count("block_n"))
      k.blockN = 0;
    if (k.pageSize && k.kv != KVLayout::Paged)
      return error("'page' is for kv=paged kernels");
    if (k.maxSeqQ && k.maxSeqQ < k.minSeqQ)
      return error("'max_seq_q' " + std::to_string(k.maxSeqQ) +
                   " is below 'min_seq_q' " + std::to_string(k.minSeqQ));
    if (k.kv != KVLayout::Dense && k.program == Program::MergeSplits)
      return error(std::string("kv=") + kvLayoutName(k.kv) +
                   " needs a program that reads keys");
    // Only now is the line's chip known, whatever the order of the keys.
    for (const SassImage &img : k.sass)
      if (!canAssemble(k.chip, img.chip))
        return error("SASS for " + img.chip.str() +
                     " in 'sass' cannot come from this line's " + k.chip.str() +
                     " PTX" +
                     (k.chip.variant == 'a'
                          ? " (architecture-specific PTX assembles only for "
                            "its own chip)"
                          : " (SASS is assembled for the PTX's chip or a "
                            "later one)"));
    return Status::success();
  }

private:
  Status setKey(const std::string &key, const std::string &value,
                KernelEntry &k, std::vector<std::string> &warnings) {
    auto intKey = [&](long long lo, long long hi, int &out) -> Status {
      if (!parseInt(value, lo, hi, out))
        return error("bad value '" + value + "' for '" + key +
                     "': expected an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
      return Status::success();
    };
    if (key == "name") {
      if (!isIdentifier(value))
        return error("bad kernel name '" + value + "'");
      k.name = value;
    } else if (key == "ptx") {
      k.ptx = value;
    } else if (key == "chip") {
      if (!parseChip(value, k.chip))
        return error("bad chip '" + value +
                     "': expected sm_XY, sm_XYa or sm_XYf");
    } else if (key == "dtype") {
      if (!parseDType(value, k.dtype))
        return error("bad dtype '" + value +
                     "': expected f16, bf16, f32 or e4m3");
    } else if (key == "head_dim") {
      return intKey(1, 1024, k.headDim);
    } else if (key == "head_dim_v") {
      return intKey(1, 1024, k.headDimV);
    } else if (key == "causal") {
      int c = 0;
      if (Status s = intKey(0, 1, c); !s.ok())
        return s;
      k.causal = c != 0;
    } else if (key == "window") {
      // L,R, each -1 (no bound) or in [0, 2^31), not both -1.
      auto bound = [](const std::string &t, long long &out) {
        char *end = nullptr;
        errno = 0;
        out = t.empty() ? 0 : std::strtoll(t.c_str(), &end, 10);
        return !t.empty() && !errno && *end == '\0' && out >= -1 &&
               out <= INT32_MAX;
      };
      size_t comma = value.find(',');
      long long l = -1, r = -1;
      if (comma == std::string::npos || !bound(value.substr(0, comma), l) ||
          !bound(value.substr(comma + 1), r) || (l == -1 && r == -1))
        return error("bad window '" + value +
                     "': expected L,R with each -1 (no bound) or in [0, 2^31), "
                     "not both -1");
      k.windowLeft = int(l);
      k.windowRight = int(r);
    } else if (key == "softcap") {
      // A positive finite f32.
      char *end = nullptr;
      errno = 0;
      float c = value.empty() ? 0.0f : std::strtof(value.c_str(), &end);
      if (value.empty() || errno || *end != '\0' || !isValidSoftcap(c))
        return error("bad softcap '" + value +
                     "': expected a positive, finite, normal f32");
      k.softcap = c;
    } else if (key == "alibi") {
      if (value != "0" && value != "1")
        return error("bad alibi '" + value + "': expected 0 or 1");
      k.alibi = value == "1";
    } else if (key == "bias") {
      DType t;
      if (!parseDType(value, t) || t == DType::E4M3)
        return error("bad bias '" + value + "': expected f32, f16 or bf16");
      k.bias = true;
      k.biasType = t;
    } else if (key == "dropout") {
      if (value != "0" && value != "1")
        return error("bad dropout '" + value + "': expected 0 or 1");
      k.dropout = value == "1";
    } else if (key == "pdl") {
      if (value != "0" && value != "1")
        return error("bad pdl '" + value + "': expected 0 or 1");
      k.dependentLaunch = value == "1";
    } else if (key == "block_m") {
      return intKey(1, 1024, k.blockM);
    } else if (key == "block_n") {
      return intKey(1, 1024, k.blockN);
    } else if (key == "threads") {
      if (Status s = intKey(32, 1024, k.threads); !s.ok())
        return s;
      if (k.threads % 32)
        return error("threads=" + value + " is not a multiple of 32");
    } else if (key == "smem") {
      // 1 MiB is far above any GPU's per-block limit; the device check
      // gives the precise message later.
      return intKey(0, 1 << 20, k.smem);
    } else if (key == "abi") {
      if (!parseKernelABI(value, k.abi))
        return error("unsupported abi '" + value +
                     "': this runtime launches abi=memref kernels (the "
                     "lowered function's arguments); rebuild the bundle with "
                     "attn-bundle");
    } else if (key == "lse") {
      int lse = 1;
      if (Status s = intKey(0, 1, lse); !s.ok())
        return s;
      k.lse = lse != 0;
    } else if (key == "program") {
      if (!parseProgram(value, k.program))
        return error("bad value '" + value + "' for 'program': expected " +
                     programNamesText());
    } else if (key == "page") {
      return intKey(1, 1 << 30, k.pageSize);
    } else if (key == "min_seq_q") {
      return intKey(0, 1 << 30, k.minSeqQ);
    } else if (key == "max_seq_q") {
      return intKey(0, 1 << 30, k.maxSeqQ);
    } else if (key == "kv") {
      if (!parseKVLayout(value, k.kv))
        return error("bad value '" + value +
                     "' for 'kv': expected dense, seqlens or paged");
    } else if (key == "grid") {
      if (!parseLaunchGrid(value, k.grid))
        return error("bad value '" + value +
                     "' for 'grid': expected X,Y,Z, each a '*'-product of "
                     "batch, heads_q, heads_kv, q_blocks, splits, kv_blocks, "
                     "group_q_blocks and constants in [1, " +
                     std::to_string(kMaxGridConstant) + "]");
    } else if (key == "sass") {
      return parseSass(value, k.sass);
    } else if (key == "tensor_maps") {
      if (!parseTensorMaps(value, k.tensorMaps))
        return error("bad value '" + value +
                     "' for 'tensor_maps': expected ARG:ROWS[,ARG:ROWS...] "
                     "with ARG a memref argument in [0, 3] (q, k, v, o), "
                     "each once, and ROWS in [1, 256]");
    } else {
      warnings.push_back(source_ + ":" + std::to_string(line_) +
                         ": unknown key '" + key + "' ignored");
    }
    return Status::success();
  }

  // chip:file[,chip:file...]; a chip at most once. Split at the first ':'
  // of each entry (a chip has none).
  Status parseSass(const std::string &value, std::vector<SassImage> &out) {
    size_t begin = 0;
    while (true) {
      size_t comma = value.find(',', begin);
      std::string item =
          value.substr(begin, comma == std::string::npos ? std::string::npos
                                                         : comma - begin);
      size_t colon = item.find(':');
      if (item.empty() || colon == std::string::npos)
        return error("bad entry '" + item +
                     "' in 'sass': expected chip:file[,chip:file...]");
      SassImage img;
      std::string chip = item.substr(0, colon);
      img.file = item.substr(colon + 1);
      if (!parseChip(chip, img.chip))
        return error("bad chip '" + chip +
                     "' in 'sass': expected sm_XY, sm_XYa or sm_XYf");
      if (img.file.empty())
        return error("no file for " + chip + " in 'sass'");
      for (const SassImage &o : out)
        if (o.chip == img.chip)
          return error(chip + " is listed twice in 'sass'");
      out.push_back(std::move(img));
      if (comma == std::string::npos)
        return Status::success();
      begin = comma + 1;
    }
  }

  const std::string &source_;
  int line_;
};

std::vector<std::string> splitWhitespace(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string tok;
  while (in >> tok)
    out.push_back(tok);
  return out;
}

} // namespace

Status parseManifest(const std::string &text, const std::string &source,
                     Manifest &out) {
  Manifest m;
  m.dir = out.dir;
  std::istringstream in(text);
  std::string line;
  int lineNo = 0;
  std::set<std::pair<std::string, std::string>> seen; // (name, chip)
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.find('\0') != std::string::npos)
      return LineParser(source, lineNo).error("NUL byte in manifest");
    size_t hash = line.find('#');
    if (hash != std::string::npos)
      line.resize(hash);
    std::vector<std::string> tokens = splitWhitespace(line);
    if (tokens.empty())
      continue;
    LineParser lp(source, lineNo);
    if (tokens[0] != "kernel")
      return lp.error("expected 'kernel', got '" + tokens[0] + "'");
    KernelEntry k;
    k.line = lineNo;
    if (Status s = lp.parse(tokens, k, m.warnings); !s.ok())
      return s;
    if (!seen.insert({k.name, k.chip.str()}).second)
      return lp.error("kernel '" + k.name + "' for " + k.chip.str() +
                      " is listed twice");
    m.kernels.push_back(std::move(k));
  }
  if (m.kernels.empty())
    return Status::error(StatusCode::BundleError,
                         source + ": no kernels in the manifest");
  out = std::move(m);
  return Status::success();
}

std::string bundleFilePath(const std::string &dir, const std::string &file) {
  if (!file.empty() && file[0] == '/')
    return file;
  return dir.empty() ? file : dir + "/" + file;
}

std::string formatWindow(int64_t left, int64_t right) {
  if (left == -1 && right == -1)
    return "";
  return std::to_string(left) + "," + std::to_string(right);
}

std::string formatSoftcap(float cap) {
  if (cap == 0)
    return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", double(cap));
  return buf;
}

std::string formatManifestLine(const KernelEntry &k) {
  std::string line = "kernel name=" + k.name + " ptx=" + k.ptx +
                     " chip=" + k.chip.str() + " dtype=" + dtypeName(k.dtype) +
                     " head_dim=" + std::to_string(k.headDim) +
                     " head_dim_v=" + std::to_string(k.headDimV) +
                     " causal=" + (k.causal ? "1" : "0") +
                     " block_m=" + std::to_string(k.blockM) +
                     (k.blockN ? " block_n=" + std::to_string(k.blockN) : "") +
                     " threads=" + std::to_string(k.threads) +
                     " smem=" + std::to_string(k.smem) +
                     " abi=" + kernelABIName(k.abi) +
                     " lse=" + (k.lse ? "1" : "0");
  if (!k.tensorMaps.empty())
    line += " tensor_maps=" + formatTensorMaps(k.tensorMaps);
  if (k.program != Program::Attention)
    line += std::string(" program=") + programName(k.program);
  if (k.kv != KVLayout::Dense)
    line += std::string(" kv=") + kvLayoutName(k.kv);
  if (k.pageSize)
    line += " page=" + std::to_string(k.pageSize);
  if (!k.grid.empty())
    line += " grid=" + formatLaunchGrid(k.grid);
  if (k.minSeqQ)
    line += " min_seq_q=" + std::to_string(k.minSeqQ);
  if (k.maxSeqQ)
    line += " max_seq_q=" + std::to_string(k.maxSeqQ);
  if (std::string w = formatWindow(k.windowLeft, k.windowRight); !w.empty())
    line += " window=" + w;
  if (std::string c = formatSoftcap(k.softcap); !c.empty())
    line += " softcap=" + c;
  if (k.alibi)
    line += " alibi=1";
  if (k.bias)
    line += std::string(" bias=") + dtypeName(k.biasType);
  if (k.dropout)
    line += " dropout=1";
  if (k.dependentLaunch)
    line += " pdl=1";
  std::string sass;
  for (const SassImage &img : k.sass)
    sass += (sass.empty() ? "" : ",") + img.chip.str() + ":" + img.file;
  if (!sass.empty())
    line += " sass=" + sass;
  return line;
}

std::string ptxPath(const std::string &dir, const KernelEntry &k) {
  return bundleFilePath(dir, k.ptx);
}

Status loadBundle(const std::string &dir, Manifest &out) {
  std::string path = dir + "/manifest.txt";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    return Status::error(
        StatusCode::BundleError,
        "no kernel bundle: cannot read '" + path + "' (" + std::strerror(err) +
            "); build the bundle, or point ATTN_BUNDLE_DIR at one");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return Status::error(StatusCode::BundleError, "cannot read '" + path + "'");
  Manifest m;
  m.dir = dir;
  if (Status s = parseManifest(text.str(), path, m); !s.ok())
    return s;
  auto isFile = [](const std::string &p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  };
  for (KernelEntry &k : m.kernels) {
    std::string ptx = ptxPath(dir, k);
    if (!isFile(ptx))
      return Status::error(StatusCode::BundleError,
                           path + ":" + std::to_string(k.line) +
                               ": PTX file '" + ptx + "' not found");
    // A bundle copied without its cubins (to save space, or by a tool that
    // knows only the PTX) still runs everywhere, through the JIT.
    std::vector<SassImage> present;
    for (SassImage &img : k.sass) {
      std::string file = bundleFilePath(dir, img.file);
      if (isFile(file))
        present.push_back(std::move(img));
      else
        m.warnings.push_back(path + ":" + std::to_string(k.line) +
                             ": SASS file '" + file + "' for " +
                             img.chip.str() + " not found: " + k.name +
                             " will be JIT-compiled from its PTX there");
    }
    k.sass = std::move(present);
  }
  out = std::move(m);
  return Status::success();
}

} // namespace attn
