package dev.egressproxies.kvm.common.libvirt;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The slice of libvirt the KVM backends use on one host's connection; {@link LibvirtJavaHost} is
 * the real one, tests use fakes. Methods may block on the daemon, so callers go through the host
 * pool.
 */
public interface LibvirtHost {

    /** The domain of that name, or empty when none is defined. */
    Optional<Domain> lookupDomain(String name);

    /** Defines (or redefines) a persistent domain from its XML. */
    Domain defineDomain(String xml);

    /** Starts a defined domain; {@link LibvirtErrorCode#OPERATION_INVALID} when it already runs. */
    void startDomain(Domain domain);

    /** Forcibly stops a running domain; {@link LibvirtErrorCode#OPERATION_INVALID} when it is not running. */
    void destroyDomain(Domain domain);

    /** Removes a domain's definition with its managed-save image, snapshot metadata and NVRAM. */
    void undefineDomain(Domain domain);

    /** The domain's current state. */
    DomainState domainState(Domain domain);

    /** The domain's metadata element in that XML namespace; empty for a domain this platform did not create. */
    Optional<String> domainMetadata(Domain domain, String namespaceUri);

    /** The domain's XML as libvirt describes it now (a running domain's live XML names its disks' backing chains). */
    default String domainXml(Domain domain) {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot read a domain's XML");
    }

    /** The addresses of a running domain's interfaces, as one source reports them. */
    List<InterfaceAddress> interfaceAddresses(Domain domain, AddressSource source);

    /** Every domain defined on the host, running or not. */
    List<Domain> listAllDomains();

    /**
     * The active domains (with a running process: executing, paused or shutting down) or, with
     * {@code active} false, the shut-off ones, in one listing call.
     */
    default List<Domain> listAllDomains(boolean active) {
        List<Domain> chosen = new ArrayList<>();
        for (Domain domain : listAllDomains()) {
            if ((domainState(domain) != DomainState.SHUTOFF) == active) {
                chosen.add(domain);
            }
        }
        return chosen;
    }

    /** The storage pool of that name, or empty when none exists. */
    Optional<StoragePool> lookupPool(String name);

    /** The pool's state and space. */
    PoolInfo poolInfo(StoragePool pool);

    /** The pool's XML description: its type and, for a dir pool, its folder on the host. */
    default String poolXml(StoragePool pool) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot describe pools");
    }

    /** Makes the pool notice volumes written behind its back (after an upload). */
    void refreshPool(StoragePool pool);

    /** The volume of that name in the pool, or empty when none exists. */
    Optional<StorageVolume> lookupVolume(StoragePool pool, String name);

    /** The names of the pool's volumes, as of its last refresh. */
    List<String> listVolumeNames(StoragePool pool);

    /** The volume's XML description, which names its backing store, if any. */
    String volumeXml(StorageVolume volume);

    /**
     * Creates a volume from its XML; {@link LibvirtErrorCode#STORAGE_VOLUME_EXISTS} when one of
     * that name exists (creation is atomic, so that one is complete).
     */
    StorageVolume createVolume(StoragePool pool, String xml);

    /**
     * Streams {@code length} bytes of {@code data} (not closed) into the volume from its start.
     *
     * @throws UploadSourceException when {@code data} fails or ends early; the upload was aborted
     */
    void uploadVolume(StorageVolume volume, InputStream data, long length);

    /**
     * Streams {@code data} (not closed) into the volume until it ends, for an image whose length is
     * known only at its end.
     *
     * @throws UploadSourceException when {@code data} fails; the upload was aborted
     */
    default void uploadVolumeUntilEnd(StorageVolume volume, InputStream data) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot upload data of unknown length");
    }

    /** A small volume's first bytes (a marker, a lease), at most {@code maximumBytes}. */
    byte[] downloadVolume(StorageVolume volume, int maximumBytes);

    /** Deletes a volume. */
    void deleteVolume(StorageVolume volume);

    /** What the host says about itself, for preflight checks. */
    HostInfo hostInfo();

    /** The host's memory, in bytes (libvirt's node info), for placement. */
    default long memoryBytes() {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot read the host's memory");
    }

    /** The most memory a domain may take, in bytes (its maximum in libvirt's domain info), for placement. */
    default long domainMemoryBytes(Domain domain) {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot read a domain's memory");
    }

    /**
     * libvirt's domain capabilities XML for x86_64 guests of {@code domainType}, for preflight
     * checks.
     */
    default String domainCapabilities(String domainType) {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot read domain capabilities");
    }

    /** Whether the host has a network interface (a bridge) of that name; NO_SUPPORT without an interface driver. */
    default boolean hasInterface(String name) {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot look up interfaces");
    }

    /** A handle to a domain on one host, valid while its connection lives. */
    interface Domain {
        /** The domain's name. */
        String name();
    }

    /** A handle to a storage pool on one host, valid while its connection lives. */
    interface StoragePool {
        /** The pool's name. */
        String name();
    }

    /** A handle to a storage volume on one host, valid while its connection lives. */
    interface StorageVolume {
        /** The volume's name within its pool. */
        String name();

        /** The volume's path on the host, as a domain's disk refers to it. */
        String path();
    }

    /** What a host's libvirt says about itself: host name, daemon version ({@code 9.0.0}), hypervisor ({@code QEMU}). */
    record HostInfo(String hostname, String libvirtVersion, String hypervisor) {
    }

    /** A storage pool's state and space, in bytes. */
    record PoolInfo(boolean running, long capacityBytes, long allocatedBytes, long availableBytes) {
    }

    /** One address, as text, of a domain's network interface. */
    record InterfaceAddress(String interfaceName, String address, boolean ipv4) {
    }

    /** Where libvirt looks for a domain's addresses: DHCP leases, the guest agent, the host's ARP table. */
    enum AddressSource {
        LEASE, AGENT, ARP
    }

    /** The states libvirt reports for a domain ({@code virDomainState}). */
    enum DomainState {
        NO_STATE, RUNNING, BLOCKED, PAUSED, SHUTDOWN, SHUTOFF, CRASHED, PM_SUSPENDED;

        /** Whether the guest is up: executing, or blocked on the hypervisor. */
        public boolean isActive() {
            return this == RUNNING || this == BLOCKED;
        }
    }
}
