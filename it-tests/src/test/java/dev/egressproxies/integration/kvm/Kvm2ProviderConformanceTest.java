package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.integration.TestProviderContext;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the {@code kvm2} backend on the real stack: built through the
 * registry from the YAML an operator would write ({@link KvmTestConfig#kvm2()}, entry
 * {@value KvmTestConfig#KVM2_ENTRY}, the stack's image pinned by its sha256 and booted with BIOS),
 * reaching the real libvirtd through the real sshd on 127.0.0.1.
 *
 * <p>{@code kvm2} shares its domains, IDs ({@code host/name}) and hosts with {@code kvm}, so the
 * capabilities and the harness ({@link KvmHarness}) are those of {@link KvmProviderConformanceTest},
 * and lacking for the same reasons:
 * <ul>
 *   <li>no {@link Capability#REACHES_RUNNING}: the stack's image holds no operating system, and
 *       the ARP address source fails in this sandbox, so no address ever appears; the suite asserts
 *       PROVISIONING without an address instead;
 *   <li>no {@link Capability#MULTIPLE_ZONES}: the stack has one libvirtd, and two hosts pointing at
 *       it would list every domain twice.
 * </ul>
 * The entry's cached base volume and its sha256 marker ({@code kvm2-test+tiny.base.qcow2} and
 * {@code .sha256}) stay in the pool between runs, as an operator's would; instance names start with
 * {@code egress-it-cf-}, so {@link NoKvmLeftovers} checks that no domain, overlay or seed is left.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ProviderConformanceTest extends ProviderConformanceTest {

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        KvmTestConfig config = KvmTestConfig.kvm2();
        Kvm2Provider kvm2 = ConfiguredProviders.providerFromYaml(config.yaml(), config.entry(), Kvm2Provider.class,
                new TestProviderContext(stateDirectory));
        return ConformanceTarget.builder(kvm2, config.entry())
                .capabilities(Capability.PLANTS_UNMANAGED_INSTANCES, Capability.STOPS_INSTANCES,
                        Capability.HANGS_ON_DEMAND, Capability.MAKES_ZONES_UNREADABLE)
                .placement(new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE))
                .namePrefix(TestStack.NAME_PREFIX)
                .malformedId("not-a-kvm2-id")
                .unknownId(KvmTestConfig.HOST + "/" + NoKvmLeftovers.CONFORMANCE_PREFIX + "never-created")
                // Without REACHES_RUNNING, how long the suite watches an instance stay PROVISIONING.
                .stateTimeout(Duration.ofSeconds(3))
                .callTimeout(Duration.ofSeconds(60))
                .harness(new KvmHarness(config.stack()))
                .build();
    }
}
