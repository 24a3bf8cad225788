/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "progress-line.h"

#include <unistd.h>

#include "ns3/simulator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace ns3
{
namespace rdmacc
{

namespace
{
/// Wall-clock seconds between two polls the spacing aims at (about 20 a second).
constexpr double kPollWall = 0.05;
/// Wall-clock seconds between two lines.
constexpr double kLineWall = 0.5;
/// Most simulated time between two polls: a poll scheduled while nothing happens (flows that
/// start late) comes soon enough once the traffic starts (each costs about a microsecond).
const Time kMaxEvery = MicroSeconds(100);
} // namespace

ProgressLine::ProgressLine(std::string name, Time end, std::string endText, FlowCount flows) :
    m_name(std::move(name)),
    m_end(end),
    m_endText(std::move(endText)),
    m_flows(std::move(flows)),
    m_every(MicroSeconds(10))
{
    if (const char* v = std::getenv("RDMACC_PROGRESS"))
    {
        char* e = nullptr;
        const double s = std::strtod(v, &e);
        if (e != v && *e == '\0' && s >= 0)
        {
            m_after = s;
        }
    }
}

ProgressLine::~ProgressLine()
{
    Stop();
}

bool
ProgressLine::Enabled()
{
    const char* v = std::getenv("RDMACC_PROGRESS");
    if (v && std::string(v) == "0")
    {
        return false;
    }
    return isatty(STDERR_FILENO) == 1;
}

void
ProgressLine::Start()
{
    if (!Enabled() || m_running)
    {
        return;
    }
    m_running = true;
    m_t0 = Clock::now();
    m_poll = m_t0;
    m_shownAt = m_t0;
    m_shownEvents = Simulator::GetEventCount();
    Simulator::Schedule(m_every, &ProgressLine::Poll, this);
}

void
ProgressLine::Stop()
{
    if (m_shown)
    {
        std::cerr << "\r\x1b[K" << std::flush; // erase the line
        m_shown = false;
    }
    m_running = false;
}

uint64_t
ProgressLine::Events() const
{
    return m_events;
}

void
ProgressLine::Poll()
{
    if (!m_running)
    {
        return;
    }
    m_events++;
    const auto now = Clock::now();
    // the next poll about kPollWall of wall time away: double or halve the simulated spacing
    const double sincePoll = std::chrono::duration<double>(now - m_poll).count();
    m_poll = now;
    if (sincePoll < kPollWall / 2 && m_every < kMaxEvery)
    {
        m_every = std::min(m_every * 2, kMaxEvery);
    }
    else if (sincePoll > kPollWall * 2 && m_every > NanoSeconds(1))
    {
        m_every = m_every / 2;
    }
    const double wall = std::chrono::duration<double>(now - m_t0).count();
    const double sinceLine = std::chrono::duration<double>(now - m_shownAt).count();
    if (wall >= m_after && (sinceLine >= kLineWall || !m_shown))
    {
        // the events of the run so far, without this line's polls
        const uint64_t ev = Simulator::GetEventCount();
        const double rate = sinceLine > 0 ? double(ev - m_shownEvents) / sinceLine : 0;
        std::ostringstream line;
        line << m_name << ": sim " << std::fixed << std::setprecision(6)
             << Simulator::Now().GetSeconds() << " s";
        if (m_end.IsStrictlyPositive())
        {
            line << " (" << std::setprecision(1)
                 << 100 * Simulator::Now().GetSeconds() / m_end.GetSeconds() << " % of "
                 << m_endText << ")";
        }
        if (m_flows)
        {
            const auto [done, total] = m_flows();
            line << ", " << done << "/" << total << " flows done";
        }
        line << ", " << std::setprecision(2) << rate / 1e6 << " M events/s, wall "
             << std::setprecision(0) << wall << " s";
        std::cerr << "\r\x1b[K" << line.str() << std::flush;
        m_shown = true;
        m_shownAt = now;
        m_shownEvents = ev;
    }
    Simulator::Schedule(m_every, &ProgressLine::Poll, this);
}

} // namespace rdmacc
} // namespace ns3
