package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.PoolInfo;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StorageVolume;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * A libvirt that answers only {@link #hostInfo()}, the one call the pool tests make, and behaves
 * like the real client library when its daemon hangs: the call blocks until the link's transport
 * is cut, then fails with a transport error.
 */
final class HangingLibvirtHost implements LibvirtHost {
    private final FakeHostLink link;

    HangingLibvirtHost(FakeHostLink link) {
        this.link = link;
    }

    @Override
    public HostInfo hostInfo() {
        if (link.isHanging()) {
            link.awaitAbort();
            throw new LibvirtException(LibvirtErrorCode.RPC, "End of file while reading data: transport cut");
        }
        return new HostInfo(link.hostName(), "9.0.0", "QEMU");
    }

    @Override
    public Optional<Domain> lookupDomain(String name) {
        throw notFaked();
    }

    @Override
    public Domain defineDomain(String xml) {
        throw notFaked();
    }

    @Override
    public void startDomain(Domain domain) {
        throw notFaked();
    }

    @Override
    public void destroyDomain(Domain domain) {
        throw notFaked();
    }

    @Override
    public void undefineDomain(Domain domain) {
        throw notFaked();
    }

    @Override
    public DomainState domainState(Domain domain) {
        throw notFaked();
    }

    @Override
    public Optional<String> domainMetadata(Domain domain, String namespaceUri) {
        throw notFaked();
    }

    @Override
    public List<InterfaceAddress> interfaceAddresses(Domain domain, AddressSource source) {
        throw notFaked();
    }

    @Override
    public List<Domain> listAllDomains() {
        throw notFaked();
    }

    @Override
    public Optional<StoragePool> lookupPool(String name) {
        throw notFaked();
    }

    @Override
    public PoolInfo poolInfo(StoragePool pool) {
        throw notFaked();
    }

    @Override
    public void refreshPool(StoragePool pool) {
        throw notFaked();
    }

    @Override
    public Optional<StorageVolume> lookupVolume(StoragePool pool, String name) {
        throw notFaked();
    }

    @Override
    public List<String> listVolumeNames(StoragePool pool) {
        throw notFaked();
    }

    @Override
    public String volumeXml(StorageVolume volume) {
        throw notFaked();
    }

    @Override
    public StorageVolume createVolume(StoragePool pool, String xml) {
        throw notFaked();
    }

    @Override
    public void uploadVolume(StorageVolume volume, InputStream data, long length) {
        throw notFaked();
    }

    @Override
    public byte[] downloadVolume(StorageVolume volume, int maximumBytes) {
        throw notFaked();
    }

    @Override
    public void deleteVolume(StorageVolume volume) {
        throw notFaked();
    }

    private static AssertionError notFaked() {
        return new AssertionError("the pool tests call only hostInfo()");
    }
}
