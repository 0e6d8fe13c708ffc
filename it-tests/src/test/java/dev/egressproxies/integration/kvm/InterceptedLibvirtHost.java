package dev.egressproxies.integration.kvm;

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
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link LibvirtHost} that hands every call to another one through an {@link Interceptor}, which
 * learns the method and the domain or volume it acts on: the one decorator the tests' counting and
 * crash-point hooks share.
 */
final class InterceptedLibvirtHost implements LibvirtHost {
    /** Runs around each call of the adapter. */
    interface Interceptor {
        /**
         * Runs {@code call}.
         *
         * @param method  the adapter method, with its mode where one method does two things, such
         *                as {@code listAllDomains(active)} or {@code interfaceAddresses(AGENT)}
         * @param subject the name of the domain, volume or pool the call acts on; empty for calls
         *                on the whole host
         */
        <T> T around(String method, String subject, Supplier<T> call);
    }

    /** The name element of domain and volume XML; the names the tests use need no escaping. */
    private static final Pattern NAME = Pattern.compile("<name>([^<]*)</name>");

    private final LibvirtHost libvirt;
    private final Interceptor interceptor;

    InterceptedLibvirtHost(LibvirtHost libvirt, Interceptor interceptor) {
        this.libvirt = libvirt;
        this.interceptor = interceptor;
    }

    private void run(String method, String subject, Runnable call) {
        interceptor.around(method, subject, () -> {
            call.run();
            return null;
        });
    }

    private static String nameIn(String xml) {
        Matcher name = NAME.matcher(xml);
        return name.find() ? name.group(1) : "";
    }

    @Override
    public Optional<Domain> lookupDomain(String name) {
        return interceptor.around("lookupDomain", name, () -> libvirt.lookupDomain(name));
    }

    @Override
    public Domain defineDomain(String xml) {
        return interceptor.around("defineDomain", nameIn(xml), () -> libvirt.defineDomain(xml));
    }

    @Override
    public void startDomain(Domain domain) {
        run("startDomain", domain.name(), () -> libvirt.startDomain(domain));
    }

    @Override
    public void destroyDomain(Domain domain) {
        run("destroyDomain", domain.name(), () -> libvirt.destroyDomain(domain));
    }

    @Override
    public void undefineDomain(Domain domain) {
        run("undefineDomain", domain.name(), () -> libvirt.undefineDomain(domain));
    }

    @Override
    public DomainState domainState(Domain domain) {
        return interceptor.around("domainState", domain.name(), () -> libvirt.domainState(domain));
    }

    @Override
    public Optional<String> domainMetadata(Domain domain, String namespaceUri) {
        return interceptor.around("domainMetadata", domain.name(), () -> libvirt.domainMetadata(domain, namespaceUri));
    }

    @Override
    public String domainXml(Domain domain) {
        return interceptor.around("domainXml", domain.name(), () -> libvirt.domainXml(domain));
    }

    @Override
    public List<InterfaceAddress> interfaceAddresses(Domain domain, AddressSource source) {
        return interceptor.around("interfaceAddresses(" + source + ")", domain.name(),
                () -> libvirt.interfaceAddresses(domain, source));
    }

    @Override
    public List<Domain> listAllDomains() {
        return interceptor.around("listAllDomains", "", libvirt::listAllDomains);
    }

    @Override
    public List<Domain> listAllDomains(boolean active) {
        return interceptor.around(active ? "listAllDomains(active)" : "listAllDomains(inactive)", "",
                () -> libvirt.listAllDomains(active));
    }

    @Override
    public Optional<StoragePool> lookupPool(String name) {
        return interceptor.around("lookupPool", name, () -> libvirt.lookupPool(name));
    }

    @Override
    public PoolInfo poolInfo(StoragePool pool) {
        return interceptor.around("poolInfo", pool.name(), () -> libvirt.poolInfo(pool));
    }

    @Override
    public String poolXml(StoragePool pool) {
        return interceptor.around("poolXml", pool.name(), () -> libvirt.poolXml(pool));
    }

    @Override
    public void refreshPool(StoragePool pool) {
        run("refreshPool", pool.name(), () -> libvirt.refreshPool(pool));
    }

    @Override
    public Optional<StorageVolume> lookupVolume(StoragePool pool, String name) {
        return interceptor.around("lookupVolume", name, () -> libvirt.lookupVolume(pool, name));
    }

    @Override
    public List<String> listVolumeNames(StoragePool pool) {
        return interceptor.around("listVolumeNames", pool.name(), () -> libvirt.listVolumeNames(pool));
    }

    @Override
    public String volumeXml(StorageVolume volume) {
        return interceptor.around("volumeXml", volume.name(), () -> libvirt.volumeXml(volume));
    }

    @Override
    public StorageVolume createVolume(StoragePool pool, String xml) {
        return interceptor.around("createVolume", nameIn(xml), () -> libvirt.createVolume(pool, xml));
    }

    @Override
    public void uploadVolume(StorageVolume volume, InputStream data, long length) {
        run("uploadVolume", volume.name(), () -> libvirt.uploadVolume(volume, data, length));
    }

    @Override
    public void uploadVolumeUntilEnd(StorageVolume volume, InputStream data) {
        run("uploadVolumeUntilEnd", volume.name(), () -> libvirt.uploadVolumeUntilEnd(volume, data));
    }

    @Override
    public byte[] downloadVolume(StorageVolume volume, int maximumBytes) {
        return interceptor.around("downloadVolume", volume.name(), () -> libvirt.downloadVolume(volume, maximumBytes));
    }

    @Override
    public void deleteVolume(StorageVolume volume) {
        run("deleteVolume", volume.name(), () -> libvirt.deleteVolume(volume));
    }

    @Override
    public HostInfo hostInfo() {
        return interceptor.around("hostInfo", "", libvirt::hostInfo);
    }
}
