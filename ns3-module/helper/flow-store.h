/*
 * rdma-cc: a run's flow records out of memory (FlowStore: a temporary file of fixed-size
 * records, read back in flow-id order) and fct.csv written one flow at a time (FctCsvWriter).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_STORE_H
#define FLOW_STORE_H

#include "ns3/rdma-nic.h"

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Writes `fct.csv` one flow at a time: header `flow_id,src,dst,size_bytes,start_ns,finish_ns,
 * fct_ns,ideal_fct_ns,slowdown,retx_bytes,scheme`, one row per flow (given in flow-id order);
 * unfinished flows have empty finish_ns, fct_ns and slowdown. With `classOf` (a class name per
 * flow id, e.g. from RdmaScenario::SetFlowClasses) a last column `class` names each flow's;
 * with `withPriority` (a run of several traffic classes) a column `priority`, each flow's data
 * priority, comes after `scheme`; with `withOp` (some flow is not a WRITE) a last column `op`.
 * Written as fct.csv.partial and renamed when complete (Commit).
 */
class FctCsvWriter
{
  public:
    /// Creates `path`.partial and writes the header.
    FctCsvWriter(const std::string& path,
                 const std::vector<std::string>* classOf,
                 bool withPriority,
                 bool withOp);
    /// Writes flow `r`'s row (with its idealFct).
    void Row(const FlowRecord& r);
    /// Completes the file (renamed to `path`).
    void Commit();

  private:
    std::string m_path;                        //!< the final name
    std::ofstream m_f;                         //!< the partial file
    const std::vector<std::string>* m_classOf; //!< the class column, or none
    bool m_withPriority;                       //!< the priority column
    bool m_withOp;                             //!< the op column
};

/**
 * \ingroup rdma-cc
 * The records of a run's flows out of memory: each record is written, as it is put, at the
 * place of its flow id in a temporary file (fixed-size binary records, PATH, registered as a
 * partial file: a run stopped by ConfigFatal leaves none), and read back in flow-id order. It
 * costs no memory per flow (the file, written only once a record is put, may have holes for
 * the flows not put). The file is removed by Remove() or the destructor.
 */
class FlowStore
{
  public:
    /// A store whose file will be `path` (created by the first Put).
    explicit FlowStore(std::string path);
    ~FlowStore();
    FlowStore(const FlowStore&) = delete;
    FlowStore& operator=(const FlowStore&) = delete;

    /// Writes `r` (its idealFct excepted) at the place of its flow id (over an earlier one).
    void Put(const FlowRecord& r);
    /**
     * Reads back the records of flow ids 0 to `n` - 1 that were put, in flow-id order.
     * \return the number of records `fn` got
     */
    size_t ForEach(uint32_t n, const std::function<void(FlowRecord&)>& fn);
    /// Removes the file (nothing when it was not created).
    void Remove();

  private:
    struct Stored;
    /// Writes the buffered records to the file.
    void Flush();

    std::string m_path;                 //!< the file
    int m_fd = -1;                      //!< its descriptor (-1: not created)
    std::vector<char> m_buf;            //!< records put, not yet written: contiguous slots
    uint64_t m_bufAt = 0;               //!< the file offset of m_buf's first byte
    std::vector<std::string> m_schemes; //!< the scheme names of the records (an index each)
};

} // namespace rdmacc
} // namespace ns3

#endif /* FLOW_STORE_H */
