package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.Placement;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The conformance target of a KVM backend's entry on the test stack, shared by {@code kvm} and
 * {@code kvm2}: both keep their instances as domains of libvirtd, with IDs {@code host/name}, so
 * they have the same placements, harness ({@link KvmHarness}) and capabilities. The entry has two
 * hosts, {@value KvmTestConfig#HOST} and {@value KvmTestConfig#HOST2}: the stack's two independent
 * libvirtds, each behind its own sshd ({@link KvmTestConfig#secondHost()}).
 *
 * <p>Declared capabilities, and why the others are lacking:
 * <ul>
 *   <li>no {@link Capability#REACHES_RUNNING}: the stack's image holds no operating system, and
 *       the ARP address source fails in this sandbox, so no address ever appears; the suite asserts
 *       PROVISIONING without an address instead, which is what the contract demands then;
 *   <li>{@link Capability#MULTIPLE_ZONES}: the two hosts are the zones;
 *   <li>{@link Capability#PLACES_INSTANCES}: a create without zone goes where the backend places it;
 *   <li>{@link Capability#PLANTS_UNMANAGED_INSTANCES}, {@link Capability#STOPS_INSTANCES},
 *       {@link Capability#HANGS_ON_DEMAND} and {@link Capability#MAKES_ZONES_UNREADABLE}: see
 *       {@link KvmHarness};
 *   <li>{@link Capability#BUILDS_ANOTHER_ENTRY}: the same configuration under the entry name
 *       {@code ENTRY-other}, on the same libvirtds (a {@code kvm2} one keeps its own cached base
 *       volume, {@code ENTRY-other+tiny.SOURCE.base.qcow2}).
 * </ul>
 * Instance names start with {@code egress-it-}, so {@code scripts/test-stack.sh down} removes
 * whatever an aborted run left.
 */
final class KvmConformanceTargets {
    private KvmConformanceTargets() {
    }

    /**
     * The target of a configuration's entry, built through the registry from its YAML.
     *
     * @param configs        makes the configuration; called again for the other entry's
     * @param type           the provider class the entry's plugin builds
     * @param stateDirectory the state directory of the provider's context
     * @param malformedId    an ID the backend must refuse as malformed
     */
    static <P extends Provider> ConformanceTarget onTestStack(Supplier<KvmTestConfig> configs, Class<P> type,
                                                              Path stateDirectory, String malformedId)
            throws IOException {
        KvmTestConfig config = configs.get().secondHost();
        P provider = ConfiguredProviders.providerFromYaml(config.yaml(), config.entry(), type,
                new TestProviderContext(stateDirectory));
        KvmTestConfig other = configs.get().secondHost().entry(config.entry() + "-other");
        Path otherStateDirectory = stateDirectory.resolve("other-entry");
        return ConformanceTarget.builder(provider, config.entry())
                .capabilities(Capability.MULTIPLE_ZONES, Capability.PLACES_INSTANCES, Capability.PLANTS_UNMANAGED_INSTANCES,
                        Capability.STOPS_INSTANCES, Capability.HANGS_ON_DEMAND, Capability.MAKES_ZONES_UNREADABLE,
                        Capability.BUILDS_ANOTHER_ENTRY, Capability.MANAGES_IMAGES)
                .placement(new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE))
                .placement(new Placement(KvmTestConfig.HOST2, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE))
                .namePrefix(TestStack.NAME_PREFIX)
                .malformedId(malformedId)
                .unknownId(KvmTestConfig.HOST + "/" + NoKvmLeftovers.CONFORMANCE_PREFIX + "never-created")
                // Without REACHES_RUNNING, how long the suite watches an instance stay PROVISIONING.
                .stateTimeout(Duration.ofSeconds(3))
                .callTimeout(Duration.ofSeconds(60))
                .harness(new KvmHarness(config.stack(), () -> entry(other, type, otherStateDirectory)))
                .build();
    }

    /** A provider of {@code config}'s entry with its own state directory. */
    private static ConformanceHarness.Entry entry(KvmTestConfig config, Class<? extends Provider> type,
                                                  Path stateDirectory) {
        try {
            Provider provider = ConfiguredProviders.providerFromYaml(config.yaml(), config.entry(), type,
                    new TestProviderContext(Files.createDirectories(stateDirectory)));
            return new ConformanceHarness.Entry(provider, config.entry());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
