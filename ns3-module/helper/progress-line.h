/*
 * rdma-cc: a progress line on stderr for runs longer than a few seconds.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PROGRESS_LINE_H
#define PROGRESS_LINE_H

#include "ns3/nstime.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 *
 * A progress line on standard error while Simulator::Run runs: the simulated time, its share
 * of the run's end (--limit or the duration), the flows done when the run counts them, the
 * events per second of wall time and the wall time, rewritten in place (`\r`) every half
 * second from the second second of wall time on, and erased when the run ends:
 *
 *     fat-tree-workload: sim 2.004120 s (66.8 % of 3 s), 1893/3201 flows done, 1.42 M events/s,
 * wall 21 s
 *
 * Only when standard error is a terminal (isatty), so logs, pipes and tests see nothing; the
 * environment variable RDMACC_PROGRESS=0 turns it off, RDMACC_PROGRESS=S starts it after S
 * seconds of wall time instead of 2. It polls the wall clock from simulator events whose
 * spacing in simulated time adapts (about 20 polls per wall-clock second); they change no
 * result (no other event moves, no random number is drawn) and are not counted in Events of
 * the run: subtract Events() from Simulator::GetEventCount.
 */
class ProgressLine
{
  public:
    /// (flows done, flows in the run)
    using FlowCount = std::function<std::pair<uint64_t, uint64_t>()>;

    /**
     * \param name the program, first on the line
     * \param end the simulated time the run ends at the latest (--limit, or a run's duration)
     * \param endText how the end is named on the line (e.g. "--limit=3s")
     * \param flows the flows done and in the run (empty: not shown)
     */
    ProgressLine(std::string name, Time end, std::string endText, FlowCount flows = nullptr);
    ~ProgressLine();

    /// Starts polling (call right before Simulator::Run) when standard error is a terminal.
    void Start();
    /// Erases the line (call right after Simulator::Run).
    void Stop();
    /// \return the simulator events the line's polls took
    uint64_t Events() const;
    /// \return whether a progress line is shown (standard error a terminal, not turned off)
    static bool Enabled();

  private:
    using Clock = std::chrono::steady_clock;
    void Poll();
    std::string m_name;          //!< program name
    Time m_end;                  //!< the run's latest end
    std::string m_endText;       //!< its name on the line
    FlowCount m_flows;           //!< flows done / total
    double m_after = 2;          //!< wall seconds before the first line
    Time m_every;                //!< simulated time between polls
    uint64_t m_events = 0;       //!< polls executed
    bool m_running = false;      //!< Start was called and polls are scheduled
    bool m_shown = false;        //!< a line is on the terminal
    Clock::time_point m_t0;      //!< wall time of Start
    Clock::time_point m_poll;    //!< wall time of the last poll
    Clock::time_point m_shownAt; //!< wall time of the last line
    uint64_t m_shownEvents = 0;  //!< simulator events at the last line
};

} // namespace rdmacc
} // namespace ns3

#endif /* PROGRESS_LINE_H */
