package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.AddressSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.InterfaceAddress;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Domains read as the contract's {@link Instance}, one (get) or a host's managed ones a few at once
 * (listManaged), and the rule that an entry acts only on its own domains.
 */
final class InstanceInspector {
    private static final Logger LOG = LoggerFactory.getLogger(InstanceInspector.class);
    private static final List<AddressSource> ADDRESS_SOURCES = List.of(AddressSource.ARP, AddressSource.AGENT);
    private static final Pattern DOTTED_QUAD = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");


    private InstanceInspector() {
    }

    /** The platform's metadata of the domain, if any; IllegalArgumentException when it cannot be read. */
    static Optional<InstanceMetadata> metadataOf(LibvirtHost libvirt, Domain domain) {
        Optional<String> element;
        try {
            element = LibvirtSteps.step("reading the metadata of domain " + domain.name(),
                    () -> libvirt.domainMetadata(domain, InstanceMetadata.NAMESPACE));
        } catch (LibvirtException failure) {
            // The adapter should answer "none" with an empty result; the code is accepted too.
            if (failure.is(LibvirtErrorCode.NO_DOMAIN_METADATA)) {
                return Optional.empty();
            }
            throw failure;
        }
        return element.map(InstanceMetadata::parse);
    }

    /** For a call about this one domain: unreadable metadata is PERMANENT. */
    static Optional<InstanceMetadata> readableMetadataOf(LibvirtHost libvirt, HostSettings host, Domain domain,
                                                         Call call) {
        try {
            return metadataOf(libvirt, domain);
        } catch (IllegalArgumentException unreadable) {
            throw call.permanent("domain '" + domain.name() + "' on host '" + host.name() + "': "
                    + unreadable.getMessage());
        }
    }

    /** PERMANENT, before anything changes, unless the domain was created through the call's entry. */
    static void requireThisEntry(InstanceMetadata metadata, HostSettings host, String name, Call call) {
        if (metadata.createdThrough(call.entry())) {
            return;
        }
        boolean create = call.operation() == Operation.CREATE;
        String refused = "domain '" + name + "' on host '" + host.name() + "' ";
        String notDone = switch (call.operation()) {
            case CREATE -> "taken over";
            case DELETE -> "deleted";
            default -> "reported";
        };
        if (metadata.entry().isPresent()) {
            String owner = metadata.entry().get();
            throw call.permanent(refused + "was created through provider entry '" + owner + "', not '" + call.entry()
                    + "', so it is not " + notDone + " through this entry: " + call.operation() + " it through entry '"
                    + owner + "'" + (create ? ", or choose another name" : ""));
        }
        // Domains made before entries were recorded have volumes named after the instance alone.
        String volumeDelete = "'virsh vol-delete --pool " + host.pool() + " ";
        throw call.permanent(refused + "was created by egress-proxies before domains recorded their provider entry, so"
                + " no entry manages it and it is not " + notDone + ": " + (create ? "choose another name, or " : "")
                + "if nothing uses it any more, remove it by hand: 'virsh destroy " + name + "' (if it runs), 'virsh"
                + " undefine " + name + " --managed-save --snapshots-metadata --nvram', " + volumeDelete + name
                + ".qcow2' and " + volumeDelete + name + ".seed.iso'");
    }

    /** The domain's state is read now, the address only while it is active. */
    static Instance describe(LibvirtHost libvirt, String hostName, Domain domain, Optional<InstanceMetadata> metadata) {
        DomainState state = LibvirtSteps.step("reading the state of domain " + domain.name(),
                () -> libvirt.domainState(domain));
        String address = state.isActive() ? addressOf(libvirt, domain) : "";
        return instance(hostName, domain, address, stateOf(state, address), metadata);
    }

    private static Instance instance(String hostName, Domain domain, String address, InstanceState state,
                                     Optional<InstanceMetadata> metadata) {
        Placement placement = new Placement(hostName, metadata.map(InstanceMetadata::machineType).orElse(""),
                metadata.map(InstanceMetadata::image).orElse(""));
        return new Instance(new ProviderId(hostName, domain.name()).toString(), domain.name(), address, state,
                metadata.map(InstanceMetadata::uid).orElse(""), metadata.map(InstanceMetadata::createdAt).orElse(null),
                placement, metadata.map(InstanceMetadata::userDataSha256).orElse(""));
    }

    static InstanceState stateOf(DomainState state, String address) {
        if (state == DomainState.NO_STATE) {
            return InstanceState.PROVISIONING;
        }
        return InstanceState.of(state.isActive(), address);
    }

    /** The first routable IPv4 address from the ARP table, else the guest agent; {@code ""} when none knows one. */
    static String addressOf(LibvirtHost libvirt, Domain domain) {
        for (AddressSource source : ADDRESS_SOURCES) {
            List<InterfaceAddress> addresses;
            try {
                addresses = libvirt.interfaceAddresses(domain, source);
            } catch (LibvirtException notYet) {
                LOG.debug("no addresses of domain {} from source {} yet: {}", domain.name(), source,
                        notYet.getMessage());
                continue;
            }
            Optional<String> routable = firstRoutableIpv4(addresses);
            if (routable.isPresent()) {
                return routable.get();
            }
        }
        return "";
    }

    static Optional<String> firstRoutableIpv4(List<InterfaceAddress> addresses) {
        return addresses.stream().filter(address -> address.ipv4() && isRoutable(address.address()))
                .map(InterfaceAddress::address).findFirst();
    }

    private static boolean isRoutable(String text) {
        // Parsed by hand: InetAddress.getByName would resolve anything that is not a literal via DNS.
        Matcher quad = text == null ? null : DOTTED_QUAD.matcher(text);
        if (quad == null || !quad.matches()) {
            return false;
        }
        int[] octets = IntStream.rangeClosed(1, 4).map(group -> Integer.parseInt(quad.group(group))).toArray();
        boolean loopback = octets[0] == 127;
        boolean linkLocal = octets[0] == 169 && octets[1] == 254;
        boolean unspecified = Arrays.stream(octets).allMatch(octet -> octet == 0);
        return Arrays.stream(octets).allMatch(octet -> octet <= 255) && !loopback && !linkLocal && !unspecified;
    }

    /** This entry's instances on the host. */
    static List<Instance> listHost(LibvirtHost libvirt, HostSettings host, Call call) {
        // Two listings tell which domains are shut off, so those need no state read of their own.
        List<Domain> active = LibvirtSteps.step("listing the domains", () -> libvirt.listAllDomains(true));
        call.checkDeadline();
        List<Domain> inactive = LibvirtSteps.step("listing the domains", () -> libvirt.listAllDomains(false));
        // A domain that started or stopped between the two is in both: its state is read then.
        Set<String> activeNames = active.stream().map(Domain::name).collect(Collectors.toSet());
        List<ListedDomain> listed = new ArrayList<>();
        active.forEach(domain -> listed.add(new ListedDomain(domain, true)));
        inactive.stream().filter(domain -> !activeNames.contains(domain.name()))
                .forEach(domain -> listed.add(new ListedDomain(domain, false)));
        // The first failure that fails the host, a passed deadline or an interrupt stops the other readers.
        return HostReads.each(host, call, listed,
                domain -> managedInstance(libvirt, host, call.entry(), domain).orElse(null))
                .stream().filter(Objects::nonNull).toList();
    }

    private record ListedDomain(Domain domain, boolean active) {
    }

    private static Optional<Instance> managedInstance(LibvirtHost libvirt, HostSettings host, String entry,
                                                      ListedDomain listed) {
        Domain domain = listed.domain();
        try {
            Optional<InstanceMetadata> metadata = metadataOf(libvirt, domain);
            if (metadata.isPresent() && metadata.get().entry().isEmpty()) {
                LOG.warn("skipping domain {} on host {}: egress-proxies created it before domains recorded their"
                        + " provider entry, so no entry lists or collects it; remove it by hand with virsh if nothing"
                        + " uses it", domain.name(), host.name());
            }
            if (metadata.isEmpty() || !metadata.get().createdThrough(entry)) {
                return Optional.empty();
            }
            if (!listed.active()) {
                // Listed as inactive: STOPPED without a state read.
                return Optional.of(instance(host.name(), domain, "", stateOf(DomainState.SHUTOFF, ""), metadata));
            }
            return Optional.of(describe(libvirt, host.name(), domain, metadata));
        } catch (LibvirtException failure) {
            if (failure.isTransportFailure()) {
                throw failure;
            }
            LOG.debug("skipping domain {} on host {}, which cannot be read: {}", domain.name(), host.name(),
                    failure.getMessage());
        } catch (IllegalArgumentException unreadable) {
            LOG.warn("skipping domain {} on host {}: its egress-proxies metadata cannot be read ({}); it is left out"
                    + " of managed instances, so it is never collected", domain.name(), host.name(),
                    unreadable.getMessage());
        }
        return Optional.empty();
    }
}
