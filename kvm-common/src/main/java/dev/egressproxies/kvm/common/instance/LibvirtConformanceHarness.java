package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.xml.DomainXml;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Conformance hooks on the entry's hosts: plant a domain without metadata (undone by restore), crash one. */
final class LibvirtConformanceHarness implements ConformanceHarness {
    private static final Duration HOOK_TIMEOUT = Duration.ofMinutes(1);

    private final EntrySettings settings;
    private final HostPool hosts;
    /** {@code null} when the backend builds no second entry. */
    private final Supplier<Entry> anotherEntry;
    private final List<ProviderId> planted = new ArrayList<>();

    LibvirtConformanceHarness(EntrySettings settings, HostPool hosts, Supplier<Entry> anotherEntry) {
        this.settings = settings;
        this.hosts = hosts;
        this.anotherEntry = anotherEntry;
    }

    @Override
    public Entry anotherEntry() {
        return anotherEntry == null ? ConformanceHarness.super.anotherEntry() : anotherEntry.get();
    }

    @Override
    public String plantUnmanaged(Placement placement, String name) {
        HostSettings host = placement.zone().isEmpty() ? settings.hosts().get(0) : settings.host(placement.zone())
                .orElseThrow(() -> new IllegalArgumentException("zone '" + placement.zone() + "' names no host"));
        ProviderId id = new ProviderId(host.name(), name);
        hosts.call(host, call(Operation.CREATE, id), libvirt -> LibvirtSteps.step("defining unmanaged domain " + name,
                () -> libvirt.defineDomain(DomainXml.unmanaged(name, host.platform(), host.bridge()))));
        planted.add(id);
        return id.toString();
    }

    @Override
    public void stop(String id) {
        ProviderId parsed = ProviderId.parse(id, Operation.GET, settings.entry());
        hosts.call(host(parsed), call(Operation.GET, parsed), libvirt -> {
            libvirt.lookupDomain(parsed.name()).ifPresent(domain -> LibvirtSteps.run("destroying domain "
                    + parsed.name(), () -> libvirt.destroyDomain(domain)));
            return null;
        });
    }

    @Override
    public void restore() {
        for (ProviderId id : List.copyOf(planted)) {
            hosts.call(host(id), call(Operation.DELETE, id), libvirt -> {
                libvirt.lookupDomain(id.name()).ifPresent(domain -> {
                    try {
                        libvirt.undefineDomain(domain);
                    } catch (LibvirtException gone) {
                        if (!gone.is(LibvirtErrorCode.NO_DOMAIN)) {
                            throw gone.during("undefining unmanaged domain " + id.name());
                        }
                    }
                });
                return null;
            });
            planted.remove(id);
        }
    }

    private HostSettings host(ProviderId id) {
        return settings.host(id.host()).orElseThrow(() -> new IllegalArgumentException("host '" + id.host()
                + "' is not configured"));
    }

    private Call call(Operation operation, ProviderId id) {
        return new Call(settings.entry(), operation, id.toString(), Deadline.after(HOOK_TIMEOUT));
    }
}
