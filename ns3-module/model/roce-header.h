/*
 * rdma-cc: the headers of a RoCEv2 packet, as one ns-3 Header.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_HEADER_H
#define ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/packet.h"
#include "ns3/tag.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Everything in front of and behind a RoCEv2 payload, serialised with the sizes of the real
 * headers so that every frame has its real length on the wire (IEEE 802.3 framing, RoCEv2 as in the
 * InfiniBand Annex A17): Ethernet header (14) + IPv4 (20) + UDP (8) + BTH (12) + ICRC (4) + FCS (4)
 * = 62 bytes, plus the AETH (4) on ACK and NACK packets, the RETH (16) of a READ request and the 16
 * reserved bytes of a CNP. The
 * fields the simulator uses (addresses, ports, ECN, priority, packet kind, PSN as a byte sequence
 * number, flow id, flags, and a 64-bit timestamp in the space of the Ethernet addresses, which the
 * fabric does not use: it routes by IP; on data packets also the message size, in the space of
 * ICRC and FCS, and the sender's scheme code, in the Ethernet space) are written into the space
 * of those headers; the rest is zero. The timestamp adds nothing to the wire size. The
 * preamble and inter-frame gap (20 B) and the padding of short frames to 64 B are added by
 * QbbNetDevice when it computes the transmission time.
 */
struct RoceFields
{
    /// Packet kinds.
    enum Kind : uint8_t
    {
        DATA = 0,           //!< payload of a queue pair
        ACK = 1,            //!< cumulative acknowledgement (AETH)
        NACK = 2,           //!< go-back-N request (AETH)
        CNP = 3,            //!< congestion notification packet
        PROBE = 4,          //!< RTT probe (LDCP rate-based variant)
        PROBE_RESP = 5,     //!< RTT probe response
        SWITCH_CONTROL = 6, //!< a frame a switch built for its neighbour (e.g. RCM's CN)
        READ_REQ = 7,       //!< RDMA READ request (RETH): seq is the first response byte asked for
    };

    /// Flag bits.
    enum Flags : uint8_t
    {
        FLAG_LAST = 1,       //!< data: carries the message's last byte
        FLAG_ECE = 2,        //!< ACK/NACK/repeat READ request: ECN echo
        FLAG_RETX = 4,       //!< data: retransmission; READ request: a repeat
        FLAG_ACKREQ = 8,     //!< data: acknowledge at once (BTH AckReq)
        FLAG_FIRST_RTT = 16, //!< data: sent before the flow's first ACK/NACK (for statistics)
        FLAG_INT = 32,       //!< data / ACK: carries HPCC's INT header (INT_BYTES, records in
                             //!< the packet's IntTag)
    };

    /// Bytes of headers and trailers around a data payload.
    static constexpr uint32_t DATA_OVERHEAD = 62;
    /// ACK extended transport header.
    static constexpr uint32_t AETH = 4;
    /// RDMA extended transport header of a READ request (address, rkey, length).
    static constexpr uint32_t RETH = 16;
    /// Reserved payload of a CNP.
    static constexpr uint32_t CNP_PAYLOAD = 16;
    /// INT (HPCC): bytes the INT header adds to a data packet or ACK with FLAG_INT: a 2-byte
    /// hop count and room for 5 hop records of 8 bytes, whatever the path's length (the HPCC
    /// simulator's fixed IntHeader; rust/core wire::INT_ON_WIRE).
    static constexpr uint32_t INT_BYTES = 42;
    /// RoCEv2's UDP destination port.
    static constexpr uint16_t ROCE_PORT = 4791;

    /// \return the IPv4 address (host order) the fabric gives node `id` (< 2^24): 11.x.y.z
    /// with x.y.z = id
    static uint32_t
    NodeToIp(uint32_t id)
    {
        return 0x0B000000u | (id & 0xFFFFFFu);
    }

    /// \return the node id encoded in a fabric address (inverse of NodeToIp)
    static uint32_t
    IpToNode(uint32_t ip)
    {
        return ip & 0xFFFFFFu;
    }

    /// \return an id of the frame's queue pair unique in the fabric: (source address, QP number)
    uint64_t
    FlowKey() const
    {
        return (uint64_t(srcIp) << 32) | flowId;
    }

    /// \return the serialised header's bytes (RoceHeader::GetSerializedSize)
    uint32_t
    Size() const
    {
        const uint32_t intBytes = (flags & FLAG_INT) ? INT_BYTES : 0;
        switch (kind)
        {
        case ACK:
        case NACK:
            return DATA_OVERHEAD + AETH + intBytes;
        case CNP:
            return DATA_OVERHEAD + CNP_PAYLOAD + intBytes;
        case READ_REQ:
            return DATA_OVERHEAD + RETH;
        default:
            return DATA_OVERHEAD + intBytes;
        }
    }

    /**
     * \return the fields as a header serialised from these reads them back (PeekFrom): what
     *         the wire does not hold is dropped (the ECN bits above the two, a non-data frame's
     *         message size and scheme). A frame's builder hands these on with the frame
     *         (QbbNetDevice), so that no hop has to parse its bytes.
     */
    RoceFields
    Canonical() const
    {
        RoceFields c = *this;
        c.ecn &= 3;
        if (kind != DATA)
        {
            c.msgSize = 0;
            c.scheme = 0;
        }
        return c;
    }

    /// Bytes of the header in front of any frame's payload: the fields PeekFrom reads
    static constexpr uint32_t PEEK_BYTES = DATA_OVERHEAD;
    /**
     * Reads the header in front of `p`'s bytes, as PeekHeader does, with one copy of its first
     * PEEK_BYTES bytes (Packet::CopyData) instead of a Buffer::Iterator read per field: for a
     * frame that came without its fields (QbbNetDevice carries them from hop to hop).
     * \return the header's serialised size, or 0 (header unchanged) if `p` is shorter than
     *         PEEK_BYTES (no RoCE frame is)
     */
    uint32_t PeekFrom(const Packet& p);

    /// Sets the fields from the header's first bytes (PEEK_BYTES of a data frame, 54 of others)
    void Parse(const uint8_t* b);

    Kind kind = DATA;             //!< packet kind
    uint8_t prio = 0;             //!< priority class (0..7), carried in the DSCP / VLAN PCP
    uint8_t ecn = 0;              //!< IP ECN bits (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE)
    uint8_t flags = 0;            //!< Flags
    uint32_t srcIp = 0;           //!< source IPv4 address
    uint32_t dstIp = 0;           //!< destination IPv4 address
    uint16_t srcPort = 0;         //!< UDP source port (flow entropy)
    uint16_t dstPort = ROCE_PORT; //!< UDP destination port
    uint32_t flowId = 0;          //!< queue pair number
    uint8_t scheme = 0;   //!< data: the sender's scheme (rdmacc_ffi::Scheme, in the Ethernet space)
    uint64_t seq = 0;     //!< data: first byte; ACK/NACK: cumulative / expected byte; probe: id
    uint64_t ts = 0;      //!< data: send time (ns), stamped by the sending NIC; ACK/NACK: the send
                          //!< time of the data packet that triggered it, echoed (TIMELY's RTT)
    uint64_t msgSize = 0; //!< data: the message's bytes (in the ICRC + FCS space), so that the
                          //!< receiver can come into being from any of the flow's packets
};

// every queued frame's slot carries one (QbbNetDevice::Slot: 64 bytes with the frame's pointer)
static_assert(sizeof(RoceFields) <= 48, "RoceFields grew: order its members by size");

/**
 * \ingroup rdma-cc
 *
 * The RoCEv2 headers as an ns-3 Header (RoceFields has the layout and the fields): what trace
 * sinks, pcap and other MPI processes read from a frame's bytes. Switches and NICs get a
 * frame's fields with the frame (RoceFields::Canonical, carried by QbbNetDevice and
 * QbbChannel), without parsing its bytes or building an ns-3 Header object, and a frame's
 * header bytes are written from its fields only when something reads them (WriteInto).
 */
class RoceHeader
    : public Header
    , public RoceFields
{
  public:
    RoceHeader() = default;

    /// \param f the fields
    explicit RoceHeader(const RoceFields& f) :
        RoceFields(f)
    {
    }

    /**
     * \return "" when the framing constants of this header (DATA_OVERHEAD, AETH, INT_BYTES)
     *         and PfcHeader::FRAME_SIZE are the ones the Rust side computes with (rust/core
     *         wire), else which differ;
     *         padding, preamble and gap are Rust's only (QbbNetDevice asks frame_on_wire)
     */
    static std::string CheckWireConstants();

    /**
     * Writes the header of `h` over the first `hdrBytes` bytes of `p`: the bytes of a frame
     * that travels with its fields (QbbNetDevice::Enqueue with RoceFields, QbbDataSource) are
     * the header's place, left unwritten (zeros) by its builder, and written here only when
     * something reads the frame's bytes (a trace sink, an RxHandler, another MPI process).
     * Idempotent: the fields, not the bytes, are the frame's truth (a switch marking CE
     * changes the fields only).
     * \param p the frame
     * \param h its fields (RoceFields::Canonical)
     * \param hdrBytes h.Size(); 0: the frame came without fields and its bytes are its own
     *        (nothing written)
     */
    static void WriteInto(Packet& p, const RoceFields& h, uint32_t hdrBytes);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
};

/// Prints the fields as RoceHeader::Print does
std::ostream& operator<<(std::ostream& os, const RoceFields& f);
/// Prints the header (RoceHeader::Print; this overload is the one a RoceHeader picks)
std::ostream& operator<<(std::ostream& os, const RoceHeader& h);

/**
 * \ingroup rdma-cc
 *
 * The INT hop records (HPCC, Li et al. SIGCOMM 2019 section 3) of a data packet, and of the ACK
 * that echoes them: what the INT header of a frame with RoceHeader::FLAG_INT holds. The records
 * travel as a packet tag of fixed size: the sending NIC adds an empty one, each switch egress
 * (QbbNetDevice::SetIntTelemetry) appends its record in place (ReplacePacketTag on an unshared
 * tag writes over it: no header is re-serialised and nothing is allocated per hop), the
 * receiving NIC copies it into the ACK. The frame's wire size counts the INT header through
 * RoceHeader::INT_BYTES; the record values are exact (the wire encoding's quantisation is not
 * modelled).
 */
class IntTag : public Tag
{
  public:
    /// The most records a packet carries: a switch finding this many appends none.
    static constexpr uint8_t MAX_HOPS = 5;

    /// One switch egress port as the packet saw it when it left.
    struct Hop
    {
        uint64_t qlenBytes = 0;   //!< bytes queued at the port (its data classes) after dequeue
        uint64_t txBytes = 0;     //!< frame bytes the port transmitted before this packet
        uint64_t tsNs = 0;        //!< dequeue time, ns
        uint64_t lineRateBps = 0; //!< the port's line rate, bit/s
        uint32_t node = 0;        //!< the switch's node id (simulator only, not on the wire)
        uint32_t port = 0;        //!< the port's index at the switch (simulator only)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint8_t nHops = 0;                //!< records written
    std::array<Hop, MAX_HOPS> hops{}; //!< the records, path order (first switch first)
};

} // namespace ns3

#endif /* ROCE_HEADER_H */
