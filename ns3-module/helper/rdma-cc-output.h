/*
 * rdma-cc: small helpers shared by the examples: checked conversion of command-line values,
 * the output directory and its files (written as NAME.partial, renamed when complete), the
 * memory check made before a run builds anything, the report of a run's invariants, and a
 * minimal JSON object writer (deterministic key order).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_OUTPUT_H
#define RDMA_CC_OUTPUT_H

#include "ns3/rdma-cc-error.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Only inside a catch block: when the exception being handled is a failed call into Rust (a
 * Rust `Err`), stops the program with ConfigFatal(`where`, the error's message); any other
 * exception is thrown on unchanged. (The bridge's error type stays out of this header.)
 * \param where what is being configured, e.g. "command line"
 */
[[noreturn]] void ConfigFatalOnRustError(const std::string& where);

/**
 * \ingroup rdma-cc
 * Calls `f`, a call into Rust, and returns its result; when it fails (a Rust `Err`), stops the
 * program with ConfigFatal(`where`, the error's message). Other exceptions pass through.
 * \param where what is being configured, e.g. "command line"
 * \param f the call
 */
template <typename F>
auto
OrConfigFatal(const std::string& where, F&& f) -> decltype(f())
{
    try
    {
        return f();
    }
    catch (...)
    {
        ConfigFatalOnRustError(where);
    }
}

/**
 * \ingroup rdma-cc
 * \return payload bit/s a link of `rateBps` carries at most when every frame carries
 *         `payload` bytes (plus the RoCEv2 headers, padding to the smallest frame, preamble
 *         and gap) and `extra` bytes more (INT's hop records): the wire limit of goodput (Rust
 *         rdma_cc_core::wire::payload_limit_with_extra)
 */
double PayloadLimitBps(uint64_t rateBps, uint64_t payload, uint64_t extra = 0);

/**
 * \ingroup rdma-cc
 * Stops the program with a message naming --limit (exit status 2) when a run limited to
 * `limitNs` of simulated time cannot carry its flows at all (the check is Rust's
 * run_limit_check): flow i carries `sizes[i]` payload bytes, in frames of `payload` bytes each
 * `extra` bytes longer (INT), to receiver `receivers[i]` (an index into `receiverRatesBps`, its
 * link's rate), and cannot finish before `finishBoundsNs[i]` (0: none known).
 */
void CheckRunLimit(uint64_t limitNs,
                   const std::vector<uint64_t>& finishBoundsNs,
                   const std::vector<uint64_t>& sizes,
                   const std::vector<uint32_t>& receivers,
                   const std::vector<uint64_t>& receiverRatesBps,
                   uint64_t payload,
                   uint64_t extra);

/**
 * \ingroup rdma-cc
 * CheckRunLimit for an incast: `senders` flows of `size` payload bytes, in frames of `payload`
 * bytes, to one receiver behind a link of `rateBps`.
 */
void CheckIncastLimit(
    uint64_t limitNs, uint64_t rateBps, uint64_t senders, uint64_t size, uint64_t payload);

/**
 * \ingroup rdma-cc
 * Creates directory `dir` (and parents); stops the program with a clear message if it cannot.
 */
void MakeOutputDir(const std::string& dir);

/**
 * \ingroup rdma-cc
 * Opens `path`.partial for writing into `f` and registers it (RegisterPartialFile), so that a
 * run stopped by ConfigFatal leaves no partial file; stops the program with an error naming
 * --out when the file cannot be created.
 * \param f the stream to open
 * \param path the file's final name
 */
void OpenPartial(std::ofstream& f, const std::string& path);

/**
 * \ingroup rdma-cc
 * Completes a file opened with OpenPartial: flushes and closes `f`, checks that every write
 * succeeded, renames `path`.partial to `path` and forgets the registration. Stops the program
 * with an error naming --out (and removing the partial files) when a write or the rename failed.
 * \param f the stream OpenPartial opened
 * \param path the file's final name
 */
void CommitPartial(std::ofstream& f, const std::string& path);

/**
 * \ingroup rdma-cc
 * \return the memory the kernel says is available for a new program without swapping
 * (MemAvailable in /proc/meminfo), in bytes; 0 when it cannot be read (not Linux).
 */
uint64_t AvailableMemoryBytes();

/**
 * \ingroup rdma-cc
 * \return `bytes` for people: "812 KB", "5.3 GB" (decimal units, 2 significant decimals).
 */
std::string FormatBytes(uint64_t bytes);

/**
 * \ingroup rdma-cc
 * Refuses a run that would not fit in memory, before it builds anything: when
 * `estimateBytes` exceeds AvailableMemoryBytes(), stops the program (exit status 2, one line)
 * with "<what> needs about <estimate> of memory (estimate), more than the <available>
 * available (MemAvailable in /proc/meminfo); <remedy>". Does nothing when the available memory
 * is unknown.
 * \param estimateBytes what the run will allocate at its peak (the caller's estimate, from
 *        constants it measured and documents)
 * \param what the options that size the run, as the user wrote them, e.g. "--senders=100000"
 * \param remedy how to proceed, e.g. "use --senders=4000 or fewer"
 */
void CheckMemory(uint64_t estimateBytes, const std::string& what, const std::string& remedy);

/**
 * \ingroup rdma-cc
 * CheckMemory against `availableBytes`, the value of AvailableMemoryBytes() the caller read
 * (once) to write its remedy.
 */
void CheckMemory(uint64_t estimateBytes,
                 const std::string& what,
                 const std::string& remedy,
                 uint64_t availableBytes);

/**
 * \ingroup rdma-cc
 * Warns, before a run, that an output file will be large: prints "rdma-cc: warning: <file>
 * will take <size>; <remedy>" on standard error.
 * \param file the file, e.g. "queue.csv"
 * \param size how large it will be, as estimated, and why, e.g. "at least 2.5 GB (a row per
 *        --sample=1ns for at least 80 ms)"
 * \param remedy how to make it smaller, e.g. "raise --sample to make it smaller"
 */
void WarnCsvSize(const std::string& file, const std::string& size, const std::string& remedy);

/**
 * \ingroup rdma-cc
 * Warns (WarnCsvSize), before a run, when the event files of FabricMonitor may take more than
 * 1 GB: drops.csv on a lossy run (a row per dropped frame: at worst one per data frame of the
 * flows, more with retransmissions) and pfc.csv on a lossless one (a PAUSE and a RESUME row per
 * data frame at worst: each frame can push a queue over XOFF and its departure below XON).
 * Both are estimates of the worst case, said so in the warning.
 * \param dataFrames the data frames of every flow (sizes / payload per frame)
 * \param lossless whether the data priority is lossless (PFC on)
 * \param remedy how to make them smaller, e.g. "use fewer or shorter flows"
 */
void WarnEventCsvSize(uint64_t dataFrames, bool lossless, const std::string& remedy);

/**
 * \ingroup rdma-cc
 * \return " reason=n" for every reason of `drops` whose count n is not 0, in their order (the
 *         drop counts of a summary table)
 */
std::string DropCounts(const std::vector<std::pair<std::string, uint64_t>>& drops);

/**
 * \ingroup rdma-cc
 * The invariants a run checks on its own results. Every failure is named in summary.json
 * ("invariants"), in the summary table ("FAILED") and on standard error, and makes the exit
 * status 3.
 */
class Invariants
{
  public:
    /// Records a failed invariant, described by `what`.
    void Fail(const std::string& what);
    /// Records `what` as a failed invariant unless `ok`.
    void Check(bool ok, const std::string& what);
    /// \return whether no invariant failed
    bool Ok() const;
    /// \return "ok", or the failures joined with "; " (summary.json's "invariants")
    std::string Text() const;
    /// \return "ok" or "FAILED" (the summary table's line)
    std::string Verdict() const;
    /**
     * Prints "rdma-cc: INVARIANT FAILED: <what>" on standard error for every failure.
     * \return the exit status of the run: 0 when no invariant failed, 3 otherwise
     */
    int Report() const;

  private:
    std::vector<std::string> m_failed; //!< the failures, in the order found
};

/// \return the rdma-cc revision this program was built from (`git describe --always --dirty`
///         at build time; "unknown" where the build did not record it)
std::string RdmaCcRevision();

/// \return the build profile this program was built with (`./waf configure --build-profile`:
///         "default" or "fast"; "unknown" where the build did not record it)
std::string RdmaCcProfile();

/// \return the ns-3 version this program was built against ("3.37")
std::string Ns3Version();

/**
 * \ingroup rdma-cc
 * One CSV row of integers and strings, built in a fixed buffer with std::to_chars and written
 * with one ostream::write: the per-event rows (pfc.csv, drops.csv, queue.csv). The bytes are
 * those std::ostream's << writes for the same values (an integer costs ~20 instructions here,
 * several hundred through the stream's locale machinery). Characters (char, uint8_t) are not
 * integers here: cast a small number to int, as for <<.
 */
class CsvRow
{
  public:
    /// Appends integer `v` in decimal.
    template <typename T,
              typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                          sizeof(T) != 1>>
    CsvRow&
    operator<<(T v)
    {
        const auto r = std::to_chars(m_buf + m_len, m_buf + sizeof(m_buf), v);
        Check(r.ec == std::errc());
        m_len = static_cast<std::size_t>(r.ptr - m_buf);
        return *this;
    }

    /// Appends character `c`.
    CsvRow&
    operator<<(char c)
    {
        Check(m_len < sizeof(m_buf));
        m_buf[m_len++] = c;
        return *this;
    }

    /// Appends string `s`.
    CsvRow&
    operator<<(const char* s)
    {
        const std::size_t n = std::strlen(s);
        Check(n <= sizeof(m_buf) - m_len);
        std::memcpy(m_buf + m_len, s, n);
        m_len += n;
        return *this;
    }

    /// Writes the row to `os` (and empties it).
    void
    WriteTo(std::ostream& os)
    {
        os.write(m_buf, static_cast<std::streamsize>(m_len));
        m_len = 0;
    }

  private:
    /// Stops the program when a row outgrows the buffer (a programming error).
    static void Check(bool fits);

    char m_buf[240];       //!< the row
    std::size_t m_len = 0; //!< bytes in it
};

/**
 * \ingroup rdma-cc
 * Writes a JSON object whose values are numbers, strings or nested objects, in insertion order,
 * so that the same run produces the same bytes.
 */
class JsonObject
{
  public:
    /// Adds an integer member.
    JsonObject& Int(const std::string& key, int64_t v);
    /// Adds an unsigned integer member.
    JsonObject& UInt(const std::string& key, uint64_t v);
    /// Adds an array of unsigned integers.
    JsonObject& UIntList(const std::string& key, const std::vector<uint64_t>& v);
    /// A list of strings.
    JsonObject& StrList(const std::string& key, const std::vector<std::string>& v);
    /// Adds a floating-point member (printed with 6 significant decimals, "null" if not finite).
    JsonObject& Num(const std::string& key, double v);
    /// Adds a boolean member.
    JsonObject& Bool(const std::string& key, bool v);
    /// Adds a string member.
    JsonObject& Str(const std::string& key, const std::string& v);
    /// Adds a nested object.
    JsonObject& Obj(const std::string& key, const JsonObject& v);
    /// Appends `other`'s members whose keys this object does not have yet.
    JsonObject& Merge(const JsonObject& other);
    /// \return whether the object has a member `key`
    bool Has(const std::string& key) const;
    /// \return the members' keys, in insertion order (a key added twice is listed twice)
    std::vector<std::string> Keys() const;
    /// \return the serialised object, indented by `indent` levels.
    std::string ToString(int indent = 0) const;
    /// Writes the object to `path`, atomically (`path`.partial, then renamed).
    void WriteFile(const std::string& path) const;

  private:
    std::vector<std::pair<std::string, std::string>> m_members; //!< key, serialised value
    std::vector<JsonObject> m_nested; //!< nested objects, referenced from m_members
};

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_OUTPUT_H */
