package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.libvirt.Domain;
import dev.egressproxies.kvm.common.libvirt.DomainState;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.time.Instant;
import java.util.Optional;

/**
 * The description of a domain as the contract's {@link Instance}: its state, address and the
 * platform's metadata. Used by get and listManaged alike, so both report the same.
 */
final class InstanceInspector {
    private InstanceInspector() {
    }

    /**
     * The platform's metadata of the domain, or empty when it has none (a domain this platform did
     * not create).
     *
     * @throws IllegalArgumentException when the element is there but cannot be read
     * @throws LibvirtException         when libvirt cannot say
     */
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

    /**
     * Like {@link #metadataOf}, for a call about this one domain: an element that is there but
     * cannot be read fails the call as PERMANENT, since only a person can repair it.
     *
     * @throws dev.egressproxies.api.ProviderException PERMANENT when the element cannot be read
     * @throws LibvirtException                        when libvirt cannot say
     */
    static Optional<InstanceMetadata> readableMetadataOf(LibvirtHost libvirt, HostSettings host, Domain domain, Call call) {
        try {
            return metadataOf(libvirt, domain);
        } catch (IllegalArgumentException unreadable) {
            // The message says what is wrong and how to repair or remove the element.
            throw call.permanent("domain '" + domain.name() + "' on host '" + host.name() + "': "
                    + unreadable.getMessage());
        }
    }

    /**
     * Describes the domain. Its state is read now; the address only while it is active.
     *
     * @param metadata the domain's metadata, or empty for a domain this platform did not create
     */
    static Instance describe(LibvirtHost libvirt, String hostName, Domain domain, Optional<InstanceMetadata> metadata) {
        DomainState state = LibvirtSteps.step("reading the state of domain " + domain.name(),
                () -> libvirt.domainState(domain));
        String address = state.isActive() ? AddressSelector.addressOf(libvirt, domain) : "";
        return instance(hostName, domain, address, stateOf(state, address), metadata);
    }

    /**
     * Describes a domain libvirt listed as inactive (shut off) without reading its state: STOPPED,
     * without an address, as {@link #describe} reports a shut-off domain.
     */
    static Instance describeInactive(String hostName, Domain domain, InstanceMetadata metadata) {
        return instance(hostName, domain, "", stateOf(DomainState.SHUTOFF, ""), Optional.of(metadata));
    }

    /**
     * The instance with what its metadata recorded: the zone is the host it is on, always known; the
     * rest is {@code ""} where the metadata lacks it.
     */
    private static Instance instance(String hostName, Domain domain, String address, InstanceState state,
                                     Optional<InstanceMetadata> metadata) {
        String uid = metadata.map(InstanceMetadata::uid).orElse("");
        Instant createdAt = metadata.map(InstanceMetadata::createdAt).orElse(null);
        Placement placement = new Placement(hostName, metadata.map(InstanceMetadata::machineType).orElse(""),
                metadata.map(InstanceMetadata::image).orElse(""));
        return new Instance(new ProviderId(hostName, domain.name()).toString(), domain.name(), address, state, uid,
                createdAt, placement, metadata.map(InstanceMetadata::userDataSha256).orElse(""));
    }

    /**
     * Maps libvirt's state onto the contract's. "No state" is PROVISIONING rather than STOPPED:
     * callers answer STOPPED with delete-and-recreate, too drastic for a state libvirt could not
     * determine; the next poll decides. Otherwise the contract's rule applies: active with an
     * address is RUNNING, active without one PROVISIONING, anything else (paused, shut off,
     * crashed, suspended) STOPPED.
     */
    static InstanceState stateOf(DomainState state, String address) {
        if (state == DomainState.NO_STATE) {
            return InstanceState.PROVISIONING;
        }
        return InstanceState.of(state.isActive(), address);
    }
}
