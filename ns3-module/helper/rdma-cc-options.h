/*
 * rdma-cc: the examples' command-line options, parsed strictly by the Rust parameter parser.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_OPTIONS_H
#define RDMA_CC_OPTIONS_H

#include "rdma-cc-output.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
class RdmaNic;
class RedEcnQueueDisc;
class SwitchNode;

namespace rdmacc
{

/**
 * \ingroup rdma-cc
 *
 * The command line of an example. Options are declared with their kind, default, bounds and
 * help (an example's own options), or come from a Rust parameter table (AddNicParams: every
 * parameter of ns3::RdmaNic; AddSwitchParams, AddRedEcnParams: chosen parameters of
 * ns3::SwitchNode, ns3::RedEcnQueueDisc; named, bounded and documented in Rust). Parse() accepts
 * only
 * `--name=value` (and `--name` alone for a yes/no option), parses every value strictly in Rust
 * (a full-string match; whole numbers where a count or bytes are expected; durations and rates
 * need their unit; the bounds) and stops the program on the first bad argument with one line
 * naming the option, the value and the rule, exit status 2. `--help` lists the options with
 * their rules and defaults and exits 0.
 *
 * One way in per parameter: `--ns3::Type::Attribute=value` of an attribute that has an option
 * here (`--ns3::RdmaNic::Scheme=dcqcn` and `--cc=dcqcn`) IS that option, and setting both
 * to different values is an error naming both. Another attribute becomes the default of its
 * type (Config::SetDefault), and CheckBeforeRun verifies that the run's objects hold it; one
 * the example sets itself (Covers) is refused at once, naming the option to use. ns-3's
 * `--PrintAttributes=TYPE`, `--PrintTypeIds`, `--PrintGlobals`, `--PrintGroups`,
 * `--PrintGroup=GROUP` work as in any ns-3 program. `--config=FILE` replays a run's
 * config.json (options given beside it override the file's); `--dryRun` checks everything
 * and builds the run, then stops before simulating (CheckBeforeRun).
 */
class Options
{
  public:
    /// \param program the example's name, for --help
    /// \param description one paragraph for --help
    Options(std::string program, std::string description);
    ~Options();

    /// Bounds of a numeric option, in the kind's unit (bytes, ns, bit/s, plain numbers).
    struct Range
    {
        bool hasMin = false;      //!< a lower bound applies
        double min = 0;           //!< lower bound
        bool minInclusive = true; //!< the lower bound itself is allowed
        bool hasMax = false;      //!< an upper bound applies
        double max = 0;           //!< upper bound
        bool maxInclusive = true; //!< the upper bound itself is allowed

        /// [lo, hi]
        static Range Closed(double lo, double hi);
        /// (lo, hi]
        static Range AboveAtMost(double lo, double hi);
        /// (lo, hi)
        static Range Open(double lo, double hi);
        /// >= lo
        static Range AtLeast(double lo);
        /// > lo
        static Range Above(double lo);
        /// no bounds
        static Range Any();
    };

    /// A whole number.
    Options& Count(const std::string& name,
                   uint64_t def,
                   const std::string& help,
                   Range r = Range::Any());
    /// A real number.
    Options& Real(const std::string& name, double def, const std::string& help, Range r);
    /// A real number whose default is `auto` (see IsAuto), meaning `autoMeaning`.
    Options& RealAuto(const std::string& name,
                      const std::string& help,
                      Range r,
                      const std::string& autoMeaning);
    /// Bytes (`12500`, `12.5KB`, `64KiB`); `autoMeaning` non-empty: 0/auto allowed.
    Options& Bytes(const std::string& name,
                   const std::string& def,
                   const std::string& help,
                   Range r = Range::Any(),
                   const std::string& autoMeaning = "");
    /// A duration with its unit (`2us`); `autoMeaning` non-empty: `auto` allowed (IsAuto).
    Options& Duration(const std::string& name,
                      const std::string& def,
                      const std::string& help,
                      Range r = Range::Any(),
                      const std::string& autoMeaning = "");
    /// A rate with its unit (`100Gbps`); `autoMeaning` non-empty: `auto` allowed (IsAuto).
    Options& Rate(const std::string& name,
                  const std::string& def,
                  const std::string& help,
                  Range r = Range::Above(0),
                  const std::string& autoMeaning = "");
    /// true/false (1/0).
    Options& Bool(const std::string& name, bool def, const std::string& help);
    /// true/false (1/0), or `auto` (the default), meaning `autoMeaning` (see IsAuto).
    Options& BoolAuto(const std::string& name,
                      const std::string& help,
                      const std::string& autoMeaning);
    /// One of `choices`.
    Options& Choice(const std::string& name,
                    const std::string& def,
                    const std::vector<std::string>& choices,
                    const std::string& help);
    /**
     * A comma-separated list of distinct names, each one of `choices` (not empty), checked
     * whole at Parse, before anything runs: e.g. the schemes an example runs one case each,
     * with ChoicesOf("cc") as `choices`. GetList returns the names.
     */
    Options& ChoiceList(const std::string& name,
                        const std::string& def,
                        const std::vector<std::string>& choices,
                        const std::string& help);
    /// \return the accepted names of the Choice option `name` (declared by the example or
    /// from a Rust table, e.g. "cc": every scheme's name)
    std::vector<std::string> ChoicesOf(const std::string& name) const;
    /// Free text (not empty).
    Options& Text(const std::string& name, const std::string& def, const std::string& help);
    /// Every parameter of ns3::RdmaNic that has a command-line option (Rust's NicConfig).
    Options& AddNicParams();
    /// The parameters of ns3::SwitchNode (Rust's SwitchConfig) whose command-line options are
    /// `names` (e.g. "buffer", "headroom"), with their Rust defaults, rules and help; a name
    /// already declared from this table is left as it is.
    Options& AddSwitchParams(const std::vector<std::string>& names);
    /// Every RCM parameter of ns3::SwitchNode (`--rcm` to enable it, `--rcm...`; Rust's
    /// RcmConfig table), as AddSwitchParams does.
    Options& AddRcmParams();
    /// The parameters of ns3::RedEcnQueueDisc (Rust's RedEcnConfig) whose command-line options
    /// are `names` (among kmin, kmax, pmax, notEct, kfs, bufMax).
    Options& AddRedEcnParams(const std::vector<std::string>& names);
    /**
     * Sets the default of option `name` to `text` (parsed by the option's own rule): an
     * example's choice for its scenario. For a parameter of a Rust table the Apply functions
     * then hand it on whether or not the user gives the option: every NIC, switch or RED/ECN
     * queue disc configured from the options takes it (ConfigureNic, ConfigureSwitch,
     * ConfigureRedEcn).
     */
    Options& Default(const std::string& name, const std::string& text);

    /**
     * Parses the command line (see the class documentation); on success every option has a
     * value. Stops the program on a bad argument (exit 2) or after --help (exit 0).
     */
    void Parse(int argc, char** argv);
    /// Prints --help and exits 0.
    [[noreturn]] void PrintHelp() const;

    /// \return whether the user gave option `name`
    bool Given(const std::string& name) const;
    /// \return whether option `name` is declared
    bool Has(const std::string& name) const;
    /**
     * After Parse: stops (exit 2, one line naming both) when the user gave both `a` and `b`,
     * options of which one makes the other meaningless (e.g. --cc, one scheme, and --schemes,
     * the list of cases: one would be ignored).
     */
    void RefuseTogether(const std::string& a, const std::string& b) const;
    /**
     * \return whether option `name` (declared with an automatic value) is `auto`: not given
     *         and `auto` by default, or given as `auto`. An explicit 0 is not auto.
     */
    bool IsAuto(const std::string& name) const;
    /// \return the value of a Count option
    uint64_t GetCount(const std::string& name) const;
    /// \return the value of a Real option
    double GetReal(const std::string& name) const;
    /// \return the value of a Bytes option (0 = auto where allowed)
    uint64_t GetBytes(const std::string& name) const;
    /// \return the value of a Duration option
    ns3::Time GetTime(const std::string& name) const;
    /// \return the value of a Rate option, bit/s
    uint64_t GetRate(const std::string& name) const;
    /// \return the value of a Bool option
    bool GetBool(const std::string& name) const;
    /// \return the value of a Choice or Text option
    std::string GetText(const std::string& name) const;
    /// \return the comma-separated items of a Text option, empty ones included (for the caller to
    /// reject)
    std::vector<std::string> GetList(const std::string& name) const;
    /// \return the value of any option as the user would write it
    std::string GetAsText(const std::string& name) const;

    /**
     * After Parse: checks the NIC parameters together on a path of `lineRateBps` and
     * `baseRtt` (e.g. LDCP's IW = BDP must be a byte at least; errors name the options), then
     * fixes the ones every NIC takes (ConfigureNic): those given, and those whose default the
     * example chose.
     * \param lineRateBps host link rate
     * \param baseRtt a base RTT of the fabric
     * \param lossless whether the data priority is lossless
     * \param intTelemetry whether the switches write INT hop records (HPCC needs them)
     */
    void ApplyNicDefaults(uint64_t lineRateBps,
                          ns3::Time baseRtt,
                          bool lossless,
                          bool intTelemetry = false) const;

    /**
     * After ApplyNicDefaults: gives `nic` the NIC options' values as Rust parsed them, once
     * (no text and no ns-3 attribute in between: RdmaNic::TakeParams). Its other parameters
     * keep what the NIC holds (its attributes' defaults, Config::SetDefault, its factory's
     * values). CheckBeforeRun verifies that every NIC of the run holds the given values.
     */
    void ConfigureNic(ns3::RdmaNic& nic) const;

    /**
     * After Parse: checks the switch parameters of AddSwitchParams together for a switch of
     * `ports` ports whose links all have `rateBps` and `delay`, with the priorities of
     * `pfcPriorities` lossless (e.g. an explicit --headroom below what the links need, or a
     * --buffer that cannot hold every port's headroom; errors name the options, exit 2), then
     * fixes the ones every switch takes (ConfigureSwitch; FabricHelper::SetSwitchOptions):
     * those given, and those whose default the example chose.
     * \param ports the switch's ports
     * \param rateBps the rate of every link
     * \param delay the one-way delay of every link
     * \param pfcPriorities mask of the lossless priorities
     */
    void ApplySwitchDefaults(uint32_t ports,
                             uint64_t rateBps,
                             ns3::Time delay,
                             uint8_t pfcPriorities) const;

    /// The links of one switch's ports, for ApplySwitchDefaults.
    struct SwitchLinks
    {
        std::vector<uint64_t> ratesBps; //!< ratesBps[p]: rate of port p's link, bit/s
        std::vector<uint64_t> delaysNs; //!< delaysNs[p]: its one-way delay, ns
        std::string label;              //!< names the switch in an error (empty: nothing added)
    };

    /**
     * After Parse: ApplySwitchDefaults for a fabric whose switches have the port links of
     * `switches` (each switch checked with its own links: a fabric of several link speeds, as
     * a topology file gives; an error is followed by the switch's label in parentheses).
     * \param switches every switch's port links
     * \param pfcPriorities mask of the lossless priorities
     * \param mmuMtu the MmuMtu the caller will set (0: the attribute's), so that --buffer is
     *        checked here against the frames the switches will take
     * \param egressLimit the EgressLimit the caller will set (0: the attribute's)
     */
    void ApplySwitchDefaults(const std::vector<SwitchLinks>& switches,
                             uint8_t pfcPriorities,
                             uint64_t mmuMtu = 0,
                             uint64_t egressLimit = 0) const;

    /**
     * After ApplySwitchDefaults, before the switch's Setup: gives `sw` the switch options'
     * values as Rust parsed them, once (SwitchNode::TakeParams); its other parameters keep
     * what the switch holds (its attributes' defaults, Config::SetDefault, its factory's
     * values). FabricHelper::SetSwitchOptions calls it on every switch it creates.
     * CheckBeforeRun verifies that every switch of the run holds the given values.
     */
    void ConfigureSwitch(ns3::SwitchNode& sw) const;

    /**
     * After Parse: checks the RED/ECN parameters of AddRedEcnParams together (e.g. --kmin <=
     * --kmax, --kfs <= --bufMax; errors name the options, exit 2), then fixes the ones every
     * queue disc takes (ConfigureRedEcn): those given, and those whose default the example
     * chose.
     */
    void ApplyRedEcnDefaults() const;

    /**
     * After ApplyRedEcnDefaults, before the queue disc is initialised: gives `q` the RED/ECN
     * options' values as Rust parsed them, once (RedEcnQueueDisc::TakeParams); its other
     * parameters keep what it holds. CheckBeforeRun verifies that every queue disc of the run
     * holds the given values.
     */
    void ConfigureRedEcn(ns3::RedEcnQueueDisc& q) const;

    /**
     * Declares that the example sets attribute `attribute` (`ns3::Type::Attr`) of the objects
     * it builds itself, from option `option`: a `--ns3::Type::Attr=VALUE` would be overwritten,
     * so Parse refuses it (exit 2) and names the option that sets it. Call before Parse.
     */
    Options& Covers(const std::string& attribute, const std::string& option);

    /// \return the data priority of the run's flows (--priority, ns3::RdmaNic::Priority)
    uint8_t DataPriority() const;

    /**
     * Just before the simulation starts, when every object of the run exists (the fabric, its
     * NICs): checks that every ns-3 attribute the command line set (`--ns3::Type::Attr=VALUE`,
     * and every given option of a Rust table) holds that value in every object of that type
     * the run built, and that the run built at least one. An attribute the example overwrote,
     * or one no object of the run has, changed nothing: the run stops with one line naming it
     * (exit 2). With --dryRun the program then stops, exit 0, before simulating (every option
     * checked, the fabric built, nothing written).
     */
    void CheckBeforeRun() const;

    /**
     * Writes `dir`/config.json: the example, the command line (that `--config=` replays), the
     * effective value of every option, `resolved` (values the example computed: `auto`
     * options, derived settings), the ns-3 attributes the command line set, every attribute of
     * the run's rdma-cc objects as they hold it, the seed's global values, the rdma-cc revision
     * and the ns-3 version. `caseName`: the file records that case of a run of several (each
     * case's directory has one; the run's own, in the directory above, is the one to replay).
     */
    void WriteConfig(const std::string& dir,
                     const JsonObject& resolved,
                     const std::string& caseName = "") const;

  private:
    struct Impl;
    std::unique_ptr<Impl> m_impl; //!< declarations and values
};

/**
 * Adds to `c` what every config.json records of the built run: `attributes` (every attribute of
 * its NICs, switches, devices and channels, as they hold it: one value, or the distinct values
 * in the order the objects were built), `global_values` and `build` (the rdma-cc revision and
 * the ns-3 version).
 */
void AddRunRecord(JsonObject& c);

/**
 * Writes `dir`/config.json for a program on ns-3's own CommandLine (no rdmacc::Options): the
 * example, its command line, `resolved` (what the program derived) and AddRunRecord's keys. A
 * record, not a replay: such a program has no --config.
 */
void WriteRunRecord(const std::string& dir,
                    const std::string& example,
                    int argc,
                    char** argv,
                    const JsonObject& resolved);

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_OPTIONS_H */
