// rdma-cc: the ns-3 Packets of a NIC's frames, reused once their arrival is over
#ifndef RDMACC_FRAME_POOL_H
#define RDMACC_FRAME_POOL_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Keeps the ns-3 `Packet` of a frame whose life is over for the next frame of the same size,
 * where building a `Packet` and freeing it again costs ~900 instructions inside ns-3 (its
 * buffer, metadata, tag lists and their allocations): a fifth of a small fabric's work per
 * event.
 *
 * Which frames: those `Make` built (the NICs' data, ACK, NACK, CNP and probe frames, whose
 * bytes are zeros where their header goes, RoceHeader::WriteInto), when their arrival at the
 * next device is done (QbbChannel's arrival event holds the last reference) and nothing read
 * their bytes on the way: RoceHeader::WriteInto calls `Forget` for every frame a trace sink,
 * an RxHandler or another MPI process reads, so such a frame is never reused (its uid, which
 * a sink may have recorded, stays unique among the frames sinks saw). A reused frame is the
 * frame `Create<Packet>(size)` builds, but for its uid: its bytes were never written, and its
 * packet and byte tags are removed (INT's records). A frame someone else still holds a
 * reference to is not reused.
 *
 * The pool is per process and outlives simulations (its frames hold nothing of one); it keeps
 * at most MAX_KEPT frames of each of at most MAX_SIZES sizes, and frees the others.
 * The mark that says "built here, not read" is the Packet's NixVector (used by ns-3's
 * Nix-vector IP routing only; a frame of this fabric never has one otherwise, and a copy of
 * the Packet gets a copy, so a copy is not marked).
 */
class FramePool
{
  public:
    /// Frames kept per size.
    static constexpr uint32_t MAX_KEPT = 4096;
    /// Sizes kept.
    static constexpr uint32_t MAX_SIZES = 8;

    /// \return a frame of `size` zero bytes with no tags, as Create<Packet>(size) builds
    static Ptr<Packet> Make(uint32_t size);
    /**
     * The end of a frame's arrival: takes over one reference to `p` (which may be null) and
     * keeps the frame for a later Make when that was the last one, Make built it, and it was
     * not forgotten; else releases the reference.
     */
    static void Release(Packet* p);
    /// `p`'s bytes are read (or its uid may be): it is never reused.
    static void Forget(const Packet& p);
    /// \return frames Make reused in this process (tests)
    static uint64_t Reused();
};

} // namespace rdmacc
} // namespace ns3

#endif /* RDMACC_FRAME_POOL_H */
