/*
 * rdma-cc: the driver of an example that runs several cases one after the other
 * (schemes, variants, ECMP mappings), each an RdmaScenario of its own.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MULTI_CASE_H
#define MULTI_CASE_H

#include "rdma-cc-output.h"
#include "rdma-scenario.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 *
 * An example of several cases: the command line is parsed once on a probe
 * scenario (every option checked, --help answered) before any case runs; each
 * case is then a scenario of its own (the example's options declared again, the
 * case's defaults, the command line parsed again, outputs in OUT/CASE/, one
 * line on stdout), run and destroyed before the next. The cases' entries go to
 * OUT/summary.json, and the run's own config.json names the cases.
 */
class MultiCase
{
  public:
    /// Declares the example's options on a scenario.
    using Declare = std::function<void(RdmaScenario&)>;
    /// A case's defaults: (option, value), set before its parse.
    using Defaults = std::vector<std::pair<std::string, std::string>>;

    /**
     * Parses the command line on the probe (a bad argument stops the program,
     * exit 2). \param name the example \param help one paragraph for --help
     * \param declare declares the example's options
     * \param argc the command line's argc
     * \param argv its argv
     */
    MultiCase(
        const std::string& name, const std::string& help, Declare declare, int argc, char** argv);

    /// \return the command line, parsed (the probe's options)
    const Options& Opts() const;
    /// \return the probe scenario (its options, Cc(), Out())
    RdmaScenario& Probe();
    /**
     * \return whether one of `alone` was given: the run is that one case alone.
     * Each of them given together with `list` (the option naming the cases) stops
     * the program.
     */
    bool Alone(const std::vector<std::string>& alone, const std::string& list) const;
    /**
     * \return a case's scenario, parsed: `defaults` set, outputs in OUT/`dir`
     * (empty: OUT), quiet (one line)
     */
    std::unique_ptr<RdmaScenario> Open(const std::string& dir, const Defaults& defaults) const;
    /**
     * Finishes case `sc` (its outputs, with `extra`'s keys) and destroys the
     * simulator. \return the case's exit status
     */
    static int Close(RdmaScenario& sc, const JsonObject& extra);
    /// Adds case `key`'s entry to OUT/summary.json; the run's status is the worst
    /// case's.
    void Record(const std::string& key, const JsonObject& entry, int status);
    /// Writes OUT/summary.json and, with `config`, the run's own config.json
    /// (`cases`: the keys).
    void Write(bool config) const;
    /// \return the output directory of the run (--out)
    std::string Out() const;
    /// \return the run's exit status: the worst of the cases Record got
    int Status() const;

  private:
    std::string m_name;                    //!< example
    std::string m_help;                    //!< its help
    Declare m_declare;                     //!< its options
    int m_argc;                            //!< the command line
    char** m_argv;                         //!< the command line
    std::unique_ptr<RdmaScenario> m_probe; //!< the first parse
    JsonObject m_all;                      //!< summary.json: an entry per case
    int m_status = 0;                      //!< the worst case's exit status
};

} // namespace rdmacc
} // namespace ns3

#endif /* MULTI_CASE_H */
