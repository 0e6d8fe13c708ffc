package dev.egressproxies.kvm.common.libvirt;

/**
 * A storage pool's state and space, in bytes.
 *
 * @param running        whether the pool is active
 * @param capacityBytes  its size
 * @param allocatedBytes what its volumes take
 * @param availableBytes what is free for new volumes
 */
public record PoolInfo(boolean running, long capacityBytes, long allocatedBytes, long availableBytes) {
}
