/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "multi-case.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{
namespace rdmacc
{

MultiCase::MultiCase(
    const std::string& name, const std::string& help, Declare declare, int argc, char** argv) :
    m_name(name),
    m_help(help),
    m_declare(std::move(declare)),
    m_argc(argc),
    m_argv(argv),
    m_probe(std::make_unique<RdmaScenario>(name, help))
{
    // the first parse checks the command line (and answers --help); the cases
    // parse it again
    m_declare(*m_probe);
    m_probe->Opts().Parse(argc, argv);
}

const Options&
MultiCase::Opts() const
{
    return m_probe->Opts();
}

RdmaScenario&
MultiCase::Probe()
{
    return *m_probe;
}

bool
MultiCase::Alone(const std::vector<std::string>& alone, const std::string& list) const
{
    bool given = false;
    for (const auto& o : alone)
    {
        given = given || Opts().Given(o);
    }
    for (const auto& o : alone)
    {
        Opts().RefuseTogether(o, list);
    }
    return given;
}

std::unique_ptr<RdmaScenario>
MultiCase::Open(const std::string& dir, const Defaults& defaults) const
{
    auto sc = std::make_unique<RdmaScenario>(m_name, m_help);
    m_declare(*sc);
    for (const auto& [option, value] : defaults)
    {
        sc->Opts().Default(option, value);
    }
    if (!dir.empty())
    {
        sc->SetCase(dir);
    }
    sc->SetQuiet(true);
    sc->Parse(m_argc, m_argv);
    return sc;
}

int
MultiCase::Close(RdmaScenario& sc, const JsonObject& extra)
{
    sc.Finish(extra);
    const int status = sc.ExitStatus();
    Simulator::Destroy();
    return status;
}

void
MultiCase::Record(const std::string& key, const JsonObject& entry, int status)
{
    m_all.Obj(key, entry);
    m_status = std::max(m_status, status);
}

void
MultiCase::Write(bool config) const
{
    m_all.WriteFile(Out() + "/summary.json");
    if (config)
    {
        // the run's own config.json (each case's directory has the case's)
        Opts().WriteConfig(Out(), JsonObject().StrList("cases", m_all.Keys()));
    }
}

std::string
MultiCase::Out() const
{
    return m_probe->Out();
}

int
MultiCase::Status() const
{
    return m_status;
}

} // namespace rdmacc
} // namespace ns3
