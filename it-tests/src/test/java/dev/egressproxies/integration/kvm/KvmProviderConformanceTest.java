package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.Capability;
import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.integration.TestProviderContext;
import dev.egressproxies.kvm.KvmProvider;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the {@code kvm} backend on the real stack: built through the
 * registry from the YAML an operator would write ({@link KvmTestConfig}), reaching the real
 * libvirtd through the real sshd on 127.0.0.1.
 *
 * <p>Declared capabilities, and why the others are lacking:
 * <ul>
 *   <li>no {@link Capability#REACHES_RUNNING}: the stack's image holds no operating system, and
 *       the ARP address source fails in this sandbox, so no address ever appears; the suite asserts
 *       PROVISIONING without an address instead, which is what the contract demands then;
 *   <li>no {@link Capability#MULTIPLE_ZONES}: the stack has one libvirtd, and two hosts pointing at
 *       it would list every domain twice;
 *   <li>{@link Capability#PLANTS_UNMANAGED_INSTANCES}, {@link Capability#STOPS_INSTANCES},
 *       {@link Capability#HANGS_ON_DEMAND} and {@link Capability#MAKES_ZONES_UNREADABLE}: see
 *       {@link KvmHarness}.
 * </ul>
 * Instance names start with {@code egress-it-}, so {@code scripts/test-stack.sh down} removes
 * whatever an aborted run left, and {@link NoKvmLeftovers} checks that this one left nothing.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class KvmProviderConformanceTest extends ProviderConformanceTest {

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        KvmTestConfig config = KvmTestConfig.standard();
        KvmProvider kvm = ConfiguredProviders.providerFromYaml(config.yaml(), KvmTestConfig.ENTRY, KvmProvider.class,
                new TestProviderContext(stateDirectory));
        return ConformanceTarget.builder(kvm, KvmTestConfig.ENTRY)
                .capabilities(Capability.PLANTS_UNMANAGED_INSTANCES, Capability.STOPS_INSTANCES,
                        Capability.HANGS_ON_DEMAND, Capability.MAKES_ZONES_UNREADABLE)
                .placement(new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE))
                .namePrefix(TestStack.NAME_PREFIX)
                .malformedId("not-a-kvm-id")
                .unknownId(KvmTestConfig.HOST + "/" + NoKvmLeftovers.CONFORMANCE_PREFIX + "never-created")
                // Without REACHES_RUNNING, how long the suite watches an instance stay PROVISIONING.
                .stateTimeout(Duration.ofSeconds(3))
                .callTimeout(Duration.ofSeconds(60))
                .harness(new KvmHarness(config.stack()))
                .build();
    }
}
