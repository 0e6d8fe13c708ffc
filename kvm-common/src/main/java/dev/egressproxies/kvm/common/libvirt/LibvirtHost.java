package dev.egressproxies.kvm.common.libvirt;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The slice of libvirt the KVM backends use, on one host's connection: the seam between the
 * backends' logic and libvirt-java, so unit tests run against a hand-written fake.
 *
 * <p>Every method may block on the hypervisor; callers reach it only through {@link
 * dev.egressproxies.kvm.common.instance.HostPool#call}, which bounds the wait by the caller's
 * deadline. Failures the daemon reports are {@link LibvirtException}s with the daemon's error
 * code (a broken link has a transport code); any other runtime exception also means a broken link.
 * {@link LibvirtJavaHost} is the real implementation.
 */
public interface LibvirtHost {

    /** The domain of that name, or empty when none is defined. */
    Optional<Domain> lookupDomain(String name);

    /** Defines (or redefines) a persistent domain from its XML. */
    Domain defineDomain(String xml);

    /**
     * Starts a defined domain.
     *
     * @throws LibvirtException {@link LibvirtErrorCode#OPERATION_INVALID} when it already runs
     */
    void startDomain(Domain domain);

    /**
     * Forcibly stops a running domain.
     *
     * @throws LibvirtException {@link LibvirtErrorCode#OPERATION_INVALID} when it is not running
     */
    void destroyDomain(Domain domain);

    /**
     * Removes a domain's definition together with its managed-save image, snapshot metadata and
     * NVRAM, so leftover state never blocks the undefine.
     */
    void undefineDomain(Domain domain);

    /** The domain's current state. */
    DomainState domainState(Domain domain);

    /**
     * The domain's metadata element in the given XML namespace, or empty when it has none
     * (a domain this platform did not create).
     */
    Optional<String> domainMetadata(Domain domain, String namespaceUri);

    /** The addresses of a running domain's interfaces, as one source reports them. */
    List<InterfaceAddress> interfaceAddresses(Domain domain, AddressSource source);

    /** Every domain defined on the host, running or not. */
    List<Domain> listAllDomains();

    /**
     * The domains defined on the host that are active (libvirt's {@code
     * VIR_CONNECT_LIST_DOMAINS_ACTIVE}: they have a running process, whether executing, paused or
     * shutting down) or, with {@code active} false, inactive (shut off). One listing call each, so
     * a caller learns which domains are shut off without reading every domain's state.
     *
     * <p>Two calls are not one snapshot: a domain that starts or stops between them may be in both
     * lists or in neither.
     *
     * <p>The default filters {@link #listAllDomains()} by each domain's {@link #domainState}, one
     * call per domain; implementations that can ask libvirt directly override it.
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

    /** Makes the pool notice volumes written behind its back (after an upload). */
    void refreshPool(StoragePool pool);

    /** The volume of that name in the pool, or empty when none exists. */
    Optional<StorageVolume> lookupVolume(StoragePool pool, String name);

    /** The names of the pool's volumes, as of its last refresh. */
    List<String> listVolumeNames(StoragePool pool);

    /** The volume's XML description, which names its backing store, if any. */
    String volumeXml(StorageVolume volume);

    /**
     * Creates a volume from its XML.
     *
     * @throws LibvirtException {@link LibvirtErrorCode#STORAGE_VOLUME_EXISTS} when one of that name
     *                          exists: creation is atomic, so the existing one is complete
     */
    StorageVolume createVolume(StoragePool pool, String xml);

    /**
     * Streams {@code length} bytes into the volume from its start; the stream is read up to
     * {@code length} bytes and not closed.
     *
     * @throws UploadSourceException when {@code data} fails or ends before {@code length} bytes;
     *                               the upload was aborted and the volume holds a partial write
     */
    void uploadVolume(StorageVolume volume, InputStream data, long length);

    /**
     * Streams {@code data} into the volume from its start until {@code data} ends, for an image whose
     * length is unknown until it has all arrived (a decompressed image); the stream is not closed.
     *
     * <p>In a {@code dir} (or {@code fs}, {@code netfs}) pool the volume is a file that grows as the
     * data arrives, whatever capacity it was created with, and keeps any bytes past the data's end:
     * create it raw with a capacity of one byte, so the file holds exactly the data, then refresh the
     * pool so libvirt reads the file's format and virtual size. In a pool of block devices
     * ({@code logical}, {@code disk}, {@code iscsi}, {@code rbd}) the volume cannot grow: the upload
     * fails at the volume's end unless it was created large enough.
     *
     * <p>A source that fails aborts the upload, so a read of the data that throws (a pipeline that
     * finds the image bad) never lets the upload finish as if complete.
     *
     * @throws UploadSourceException when {@code data} fails; the upload was aborted and the volume
     *                               holds a partial write
     * @throws UnsupportedOperationException from an implementation that cannot stream to an end
     */
    default void uploadVolumeUntilEnd(StorageVolume volume, InputStream data) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot upload data of unknown length");
    }

    /**
     * Reads a volume's first bytes, at most {@code maximumBytes} (fewer when the volume is
     * smaller); for small volumes such as markers, never for images.
     */
    byte[] downloadVolume(StorageVolume volume, int maximumBytes);

    /** Deletes a volume. */
    void deleteVolume(StorageVolume volume);

    /** What the host says about itself, for preflight checks. */
    HostInfo hostInfo();

    /**
     * libvirt's domain capabilities XML ({@code virConnectGetDomainCapabilities}) for x86_64 guests
     * of {@code domainType} ({@code kvm} or {@code qemu}), for preflight checks.
     *
     * <p>The default throws {@link LibvirtErrorCode#NO_SUPPORT}; implementations that can ask
     * libvirt override it.
     *
     * @throws LibvirtException {@link LibvirtErrorCode#CONFIG_UNSUPPORTED} or {@link
     *                          LibvirtErrorCode#INVALID_ARGUMENT} when the host does not offer the type
     */
    default String domainCapabilities(String domainType) {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot read domain capabilities");
    }

    /**
     * Whether the host has a network interface (a bridge, for example) of that name, as libvirt's
     * interface driver sees it; for preflight checks.
     *
     * <p>The default throws {@link LibvirtErrorCode#NO_SUPPORT}; implementations that can ask
     * libvirt override it.
     *
     * @throws LibvirtException {@link LibvirtErrorCode#NO_SUPPORT} when the host's libvirt has no
     *                          interface driver
     */
    default boolean hasInterface(String name) {
        throw new LibvirtException(LibvirtErrorCode.NO_SUPPORT, getClass().getSimpleName()
                + " cannot look up interfaces");
    }
}
