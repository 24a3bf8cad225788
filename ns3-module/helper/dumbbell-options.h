/*
 * rdma-cc: red-ecn-dumbbell's options and the checks made on them before anything is built:
 * each UDP sender's rate, the memory the run will take, the size of queue.csv; and the payload
 * rate its bottleneck can carry at most.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DUMBBELL_OPTIONS_H
#define DUMBBELL_OPTIONS_H

#include "rdma-cc-options.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Declares red-ecn-dumbbell's options (--senders, --transport, the links, --simTime, the
 * RED/ECN queue disc's with this dumbbell's defaults, --udpLoad, --sample, --csvWarn, --seed,
 * --out) and the link attributes they cover.
 * \param opts the options
 * \param firstStart when the first sender starts (--simTime must be later)
 */
void DeclareDumbbellOptions(Options& opts, Time firstStart);

/**
 * \ingroup rdma-cc
 * transport=udp: each sender's constant rate, --udpLoad times --bottleneckRate shared by the
 * --senders, a whole number of bit/s (ns-3's DataRate). ns-3's OnOffApplication sends one
 * packet every payload/rate: a rate of 0 makes that interval infinite (ns-3 then schedules in
 * the past and never ends), one below 1 ns (ns-3's time resolution) rounds to 0 and sends
 * forever at the same instant; either stops the program (exit 2, naming --udpLoad).
 * \param opts the parsed options
 * \param payload UDP payload bytes per packet
 * \return the rate, bit/s
 */
uint64_t DumbbellUdpRate(const Options& opts, uint32_t payload);

/**
 * \ingroup rdma-cc
 * Refuses (CheckMemory, exit 2) a run that cannot fit in memory, before anything is built; the
 * remedy names the most --senders that fit.
 * \param opts the parsed options
 * \param udpRateBps transport=udp: each sender's rate (DumbbellUdpRate); else unused
 * \param udpPayload UDP payload bytes per packet
 */
void CheckDumbbellMemory(const Options& opts, uint64_t udpRateBps, uint32_t udpPayload);

/**
 * \ingroup rdma-cc
 * Warns (WarnCsvSize) when queue.csv, one row per --sample from `firstStart` to --simTime, will
 * be larger than --csvWarn.
 * \param opts the parsed options
 * \param firstStart when sampling starts
 */
void WarnQueueCsvSize(const Options& opts, Time firstStart);

/**
 * \ingroup rdma-cc
 * The most application payload the bottleneck can carry: every packet on it is a PPP frame
 * (2 B header, ns-3 adds no preamble or gap) around an IPv4 packet (20 B header) around a UDP
 * datagram (8 B header, `udpPayload` B) or a TCP segment (20 B header plus 12 B with the
 * timestamp option, ns-3's default; at most SegmentSize B of payload). A smaller packet carries
 * proportionally less, so payload / (payload + headers) at the largest payload bounds the
 * payload rate over the time the senders run.
 * \param tcp whether the senders are TCP (else UDP)
 * \param bottleneckBps the bottleneck's rate
 * \param udpPayload UDP payload bytes per packet
 * \return the payload limit, bit/s
 */
double DumbbellPayloadLimit(bool tcp, uint64_t bottleneckBps, uint32_t udpPayload);

} // namespace rdmacc
} // namespace ns3

#endif /* DUMBBELL_OPTIONS_H */
