package dev.egressproxies.kvm.common.libvirt;

import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import java.io.InputStream;
import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.libvirt.Connect;
import org.libvirt.DomainInfo;
import org.libvirt.DomainInterface;
import org.libvirt.StoragePoolInfo.StoragePoolState;
import org.libvirt.StoragePoolInfo;
import org.libvirt.StorageVol;

/**
 * {@link LibvirtHost} on one libvirt-java connection: the real adapter, talking to a libvirt daemon
 * through the native client library.
 */
public final class LibvirtJavaHost implements LibvirtHost, AutoCloseable {
    /**
     * {@code VIR_DOMAIN_UNDEFINE_NVRAM}; libvirt-java 0.5.4 has the managed-save and
     * snapshot-metadata constants but not this one.
     */
    private static final int UNDEFINE_NVRAM = 1 << 2;
    /** Everything libvirt may keep next to a definition, so an undefine never fails on leftovers. */
    static final int UNDEFINE_FLAGS = org.libvirt.Domain.UndefineFlags.MANAGED_SAVE
            | org.libvirt.Domain.UndefineFlags.SNAPSHOTS_METADATA | UNDEFINE_NVRAM;

    /** {@code VIR_CONNECT_LIST_DOMAINS_ACTIVE} and {@code _INACTIVE}, which libvirt-java 0.5.4 does not name. */
    private static final int LIST_DOMAINS_ACTIVE = 1;
    private static final int LIST_DOMAINS_INACTIVE = 2;

    private final String uri;
    private final SharedConnection connection;

    private LibvirtJavaHost(String uri, Connect connect) {
        this.uri = uri;
        this.connection = new SharedConnection(connect);
    }

    /**
     * Opens a read-write connection to the libvirt daemon at {@code uri}, such as
     * {@code qemu:///system} or {@code qemu+unix:///system?socket=/path/to/libvirt.sock}. Blocks
     * until the daemon answers.
     *
     * @throws LibvirtException what libvirt reported (no daemon, access denied)
     * @throws IllegalStateException when the native libvirt library is not installed
     */
    public static LibvirtJavaHost connect(String uri) {
        Objects.requireNonNull(uri, "uri");
        NativeLibvirt.ensureLoaded();
        try {
            return new LibvirtJavaHost(uri, new CapableConnect(uri));
        } catch (org.libvirt.LibvirtException e) {
            throw LibvirtJavaErrors.translate(e);
        }
    }

    /** The URI this connection was opened with. */
    public String uri() {
        return uri;
    }

    /** Whether the connection is open and its socket not known to be closed; never waits for the daemon. */
    public boolean isAlive() {
        return connection.isAlive();
    }

    /**
     * Closes the connection once no call is inside it, and returns what completes then; calls that
     * start afterwards fail with {@link LibvirtErrorCode#NO_CONNECT}.
     */
    public CompletableFuture<Void> closeWhenIdle() {
        return connection.closeWhenIdle();
    }

    /** Same as {@link #closeWhenIdle()}, without waiting. */
    @Override
    public void close() {
        closeWhenIdle();
    }

    @Override
    public Optional<Domain> lookupDomain(String name) {
        return connection.call(connect -> {
            try {
                return Optional.of(new JavaDomain(this, connect.domainLookupByName(name), name));
            } catch (org.libvirt.LibvirtException e) {
                return absentWhen(e, LibvirtErrorCode.NO_DOMAIN);
            }
        });
    }

    @Override
    public Domain defineDomain(String xml) {
        return connection.call(connect -> {
            org.libvirt.Domain domain = connect.domainDefineXML(xml);
            return new JavaDomain(this, domain, domain.getName());
        });
    }

    @Override
    public void startDomain(Domain domain) {
        connection.run(connect -> unwrap(domain).domain().create());
    }

    @Override
    public void destroyDomain(Domain domain) {
        connection.run(connect -> unwrap(domain).domain().destroy());
    }

    @Override
    public void undefineDomain(Domain domain) {
        connection.run(connect -> unwrap(domain).domain().undefine(UNDEFINE_FLAGS));
    }

    @Override
    public DomainState domainState(Domain domain) {
        DomainInfo info = connection.call(connect -> unwrap(domain).domain().getInfo());
        // libvirt-java's enum lists virDomainState in libvirt's order, as this module's does.
        return DomainState.values()[info.state.ordinal()];
    }

    @Override
    public Optional<String> domainMetadata(Domain domain, String namespaceUri) {
        return connection.call(connect -> {
            try {
                return Optional.of(unwrap(domain).domain().getMetadata(org.libvirt.Domain.MetadataType.ELEMENT,
                        namespaceUri, org.libvirt.Domain.ModificationImpact.CURRENT));
            } catch (org.libvirt.LibvirtException e) {
                return absentWhen(e, LibvirtErrorCode.NO_DOMAIN_METADATA);
            }
        });
    }

    @Override
    public List<InterfaceAddress> interfaceAddresses(Domain domain, AddressSource source) {
        Collection<DomainInterface> interfaces = connection.call(connect -> unwrap(domain).domain()
                .interfaceAddresses(sourceNumber(source), 0));
        List<InterfaceAddress> addresses = new ArrayList<>();
        for (DomainInterface networkInterface : interfaces) {
            for (DomainInterface.InterfaceAddress address : networkInterface.addrs) {
                addresses.add(new InterfaceAddress(networkInterface.name, address.address.getHostAddress(),
                        address.address instanceof Inet4Address));
            }
        }
        return addresses;
    }

    @Override
    public List<Domain> listAllDomains() {
        return listDomains(0);
    }

    @Override
    public List<Domain> listAllDomains(boolean active) {
        return listDomains(active ? LIST_DOMAINS_ACTIVE : LIST_DOMAINS_INACTIVE);
    }

    private List<Domain> listDomains(int flags) {
        return connection.call(connect -> {
            List<Domain> domains = new ArrayList<>();
            for (org.libvirt.Domain domain : connect.listAllDomains(flags)) {
                domains.add(new JavaDomain(this, domain, domain.getName()));
            }
            return domains;
        });
    }

    @Override
    public Optional<StoragePool> lookupPool(String name) {
        return connection.call(connect -> {
            try {
                return Optional.of(new JavaStoragePool(this, connect.storagePoolLookupByName(name), name));
            } catch (org.libvirt.LibvirtException e) {
                return absentWhen(e, LibvirtErrorCode.NO_STORAGE_POOL);
            }
        });
    }

    @Override
    public PoolInfo poolInfo(StoragePool pool) {
        StoragePoolInfo info = connection.call(connect -> unwrap(pool).pool().getInfo());
        // A degraded pool still serves its volumes; only an inactive or building one does not.
        boolean running = info.state == StoragePoolState.VIR_STORAGE_POOL_RUNNING
                || info.state == StoragePoolState.VIR_STORAGE_POOL_DEGRADED;
        return new PoolInfo(running, info.capacity, info.allocation, info.available);
    }

    @Override
    public String poolXml(StoragePool pool) {
        return connection.call(connect -> unwrap(pool).pool().getXMLDesc(0));
    }

    @Override
    public void refreshPool(StoragePool pool) {
        connection.run(connect -> unwrap(pool).pool().refresh(0));
    }

    @Override
    public Optional<StorageVolume> lookupVolume(StoragePool pool, String name) {
        return connection.call(connect -> {
            StorageVol volume;
            try {
                volume = unwrap(pool).pool().storageVolLookupByName(name);
            } catch (org.libvirt.LibvirtException e) {
                return absentWhen(e, LibvirtErrorCode.NO_STORAGE_VOLUME);
            }
            return Optional.of(new JavaStorageVolume(this, volume, name, volume.getPath()));
        });
    }

    @Override
    public List<String> listVolumeNames(StoragePool pool) {
        return connection.call(connect -> List.of(unwrap(pool).pool().listVolumes()));
    }

    @Override
    public String domainXml(Domain domain) {
        return connection.call(connect -> unwrap(domain).domain().getXMLDesc(0));
    }

    @Override
    public String volumeXml(StorageVolume volume) {
        return connection.call(connect -> unwrap(volume).volume().getXMLDesc(0));
    }

    @Override
    public StorageVolume createVolume(StoragePool pool, String xml) {
        return connection.call(connect -> {
            StorageVol volume = unwrap(pool).pool().storageVolCreateXML(xml, 0);
            return new JavaStorageVolume(this, volume, volume.getName(), volume.getPath());
        });
    }

    @Override
    public void uploadVolume(StorageVolume volume, InputStream data, long length) {
        connection.run(connect -> VolumeTransfer.upload(connect, unwrap(volume).volume(), data, length));
    }

    @Override
    public void uploadVolumeUntilEnd(StorageVolume volume, InputStream data) {
        connection.run(connect -> VolumeTransfer.uploadUntilEnd(connect, unwrap(volume).volume(), data));
    }

    @Override
    public byte[] downloadVolume(StorageVolume volume, int maximumBytes) {
        return connection.call(connect -> VolumeTransfer.download(connect, unwrap(volume).volume(), maximumBytes));
    }

    @Override
    public void deleteVolume(StorageVolume volume) {
        connection.run(connect -> unwrap(volume).volume().delete(0));
    }

    @Override
    public HostInfo hostInfo() {
        return connection.call(connect -> new HostInfo(connect.getHostName(), versionText(connect.getLibVersion()),
                connect.getType()));
    }

    @Override
    public long memoryBytes() {
        // node info reports KiB.
        return connection.call(connect -> connect.nodeInfo().memory * 1024L);
    }

    @Override
    public long domainMemoryBytes(Domain domain) {
        return connection.call(connect -> unwrap(domain).domain().getInfo().maxMem * 1024L);
    }

    @Override
    public String domainCapabilities(String domainType) {
        return connection.call(connect -> ((CapableConnect) connect).domainCapabilities("x86_64", domainType));
    }

    @Override
    public boolean hasInterface(String name) {
        return connection.call(connect -> {
            try {
                connect.interfaceLookupByName(name);
                return true;
            } catch (org.libvirt.LibvirtException e) {
                return absentWhen(e, LibvirtErrorCode.NO_INTERFACE).isPresent();
            }
        });
    }

    @Override
    public String toString() {
        return "LibvirtJavaHost[" + uri + "]";
    }

    /** Empty for the one code that means "not there", the translated exception for any other. */
    private static <T> Optional<T> absentWhen(org.libvirt.LibvirtException e, LibvirtErrorCode absent) {
        LibvirtException translated = LibvirtJavaErrors.translate(e);
        if (translated.is(absent)) {
            return Optional.empty();
        }
        throw translated;
    }

    /** {@code virDomainInterfaceAddressesSource}. */
    private static int sourceNumber(AddressSource source) {
        return switch (source) {
            case LEASE -> org.libvirt.Domain.InterfaceAddressesSource.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_LEASE;
            case AGENT -> org.libvirt.Domain.InterfaceAddressesSource.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT;
            case ARP -> org.libvirt.Domain.InterfaceAddressesSource.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_ARP;
        };
    }

    /** libvirt's {@code major * 1,000,000 + minor * 1,000 + release} as {@code major.minor.release}. */
    static String versionText(long version) {
        return (version / 1_000_000) + "." + (version / 1_000 % 1_000) + "." + (version % 1_000);
    }

    private JavaDomain unwrap(Domain domain) {
        if (domain instanceof JavaDomain handle && handle.owner() == this) {
            return handle;
        }
        throw foreignHandle("domain", domain);
    }

    private JavaStoragePool unwrap(StoragePool pool) {
        if (pool instanceof JavaStoragePool handle && handle.owner() == this) {
            return handle;
        }
        throw foreignHandle("storage pool", pool);
    }

    private JavaStorageVolume unwrap(StorageVolume volume) {
        if (volume instanceof JavaStorageVolume handle && handle.owner() == this) {
            return handle;
        }
        throw foreignHandle("storage volume", volume);
    }

    private IllegalArgumentException foreignHandle(String kind, Object handle) {
        return new IllegalArgumentException("the " + kind + " handle " + handle + " was not made by this connection ("
                + uri + "); handles are valid only within the host call that looked them up");
    }

    /**
     * A domain handle of {@link LibvirtJavaHost}: libvirt-java's object, the host that made it and
     * the name read once (libvirt keeps it client-side, but reading it again costs a native call).
     */
    private record JavaDomain(LibvirtJavaHost owner, org.libvirt.Domain domain, String name) implements Domain {
    }

    /** A storage pool handle of {@link LibvirtJavaHost}: libvirt-java's object and the host that made it. */
    private record JavaStoragePool(LibvirtJavaHost owner, org.libvirt.StoragePool pool, String name) implements StoragePool {
    }

    /**
     * A storage volume handle of {@link LibvirtJavaHost}: libvirt-java's object, the host that made
     * it, and the name and path read when it was looked up or created.
     */
    private record JavaStorageVolume(LibvirtJavaHost owner, StorageVol volume, String name, String path)
            implements StorageVolume {
    }
}
